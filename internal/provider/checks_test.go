// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

// everyElement is a knownvalue.Check that applies fn to every object of a
// list value, with numbers decoded to float64. It lets acceptance tests
// assert properties of a whole result ("every candidate is in the EU")
// rather than fixed values.
type everyElement struct {
	fn func(map[string]any) error
}

var _ knownvalue.Check = everyElement{}

func everyOffer(fn func(map[string]any) error) knownvalue.Check { return everyElement{fn: fn} }

func (e everyElement) CheckValue(v any) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("expected a list, got %T", v)
	}
	if len(list) == 0 {
		return fmt.Errorf("expected a non-empty list")
	}
	for i, el := range list {
		obj, ok := el.(map[string]any)
		if !ok {
			return fmt.Errorf("element %d: expected an object, got %T", i, el)
		}
		if err := e.fn(numbersToFloat(obj)); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	return nil
}

func (e everyElement) String() string { return "every element satisfies the predicate" }

func numbersToFloat(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if n, ok := v.(json.Number); ok {
			f, err := n.Float64()
			if err == nil {
				out[k] = f
				continue
			}
		}
		out[k] = v
	}
	return out
}
