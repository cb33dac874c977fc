// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// The documentation of an object input, generated from its key table when
// the schema is built: one Markdown list item per key with its type,
// whether it is required, what it means, its allowed values, default and
// range (tfplugindocs writes the description as it is, so the list nests
// under the attribute's item on the registry page).

// objectNote says, on every object input, why its type reads Dynamic and
// how a module passes it.
const objectNote = "An object, typed Dynamic so that Terraform passes every key to the provider: a misspelled key is an " +
	"error naming the closest attribute (a module passing it should type its variable `any`, see the provider page). " +
	"Its attributes:"

// objectDoc is the MarkdownDescription of an object input.
func objectDoc(intro string, keys keyTable) string {
	return strings.TrimSpace(intro) + " " + objectNote + "\n" + keys.markdown("  ")
}

// objectAttribute is a data source's object input.
func objectAttribute(required bool, intro string, keys keyTable) schema.DynamicAttribute {
	return schema.DynamicAttribute{Required: required, Optional: !required, MarkdownDescription: objectDoc(intro, keys),
		Validators: []validator.Dynamic{objectValidator{keys}}}
}

func (t *objectKeys[T]) markdown(indent string) string {
	var b strings.Builder
	for i, k := range t.keys {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(indent + "- `" + k.name + "` (" + k.is.typeName())
		if k.required {
			b.WriteString(", Required")
		}
		b.WriteString(") " + k.doc)
		if k.def != "" {
			b.WriteString(" Default: " + k.def + ".")
		}
		b.WriteString(k.is.rule())
		if k.is.kind == kindObject {
			b.WriteString(" Its attributes:\n" + k.is.nested.markdown(indent+"  "))
		}
	}
	return b.String()
}

// typeName is the key's type as the docs name it.
func (is valueOf[T]) typeName() string {
	switch is.kind {
	case kindNumber:
		return "Number"
	case kindStrings:
		return "List of String"
	case kindObject:
		return "Object"
	}
	return "String"
}

// rule documents the allowed values or range.
func (is valueOf[T]) rule() string {
	switch {
	case is.kind == kindNumber:
		return is.limit.Doc()
	case is.enum != nil && is.kind == kindStrings:
		return " Values (any case): " + codeList(is.enum) + "."
	case is.enum != nil:
		return " One of (any case): " + codeList(is.enum) + "."
	}
	return ""
}

func (t *objectKeys[T]) numberLimits(prefix string) map[string]inputLimit {
	out := map[string]inputLimit{}
	for _, k := range t.keys {
		switch k.is.kind {
		case kindNumber:
			out[prefix+k.name] = k.is.limit
		case kindObject:
			for name, l := range k.is.nested.numberLimits(prefix + k.name + ".") {
				out[name] = l
			}
		}
	}
	return out
}

func (t *objectKeys[T]) names(prefix string) []string {
	var out []string
	for _, k := range t.keys {
		if k.is.kind == kindObject {
			out = append(out, k.is.nested.names(prefix+k.name+".")...)
			continue
		}
		out = append(out, prefix+k.name)
	}
	return out
}
