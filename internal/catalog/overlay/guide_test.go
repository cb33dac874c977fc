// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// The user guide states the reader's bounds as they are.
func TestGuideStatesTheBounds(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", "..", "templates", "guides", "catalog-overlay.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(guide)), " ")
	for _, want := range []string{
		fmt.Sprintf("at most %d MB", MaxBytes>>20),
		fmt.Sprintf("more than %s problems", catalog.FormatNumber(maxProblemsRead)),
		fmt.Sprintf("the first %d are listed", maxProblems),
		fmt.Sprintf("at most %d characters", excerptRunes),
		fmt.Sprintf("at most %s values", catalog.FormatNumber(maxParseValues)),
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the guide does not say %q", want)
		}
	}
}
