// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"
)

// A misspelled attribute inside an object is dropped by Terraform before
// the provider sees it; an object left with nothing set gets a warning on
// its own line that lists its attributes, and an object with a known
// attribute set gets none.
func TestAccWarnings_emptyObject(t *testing.T) {
	const wl = `workload = { kind = "inference", model_parameters_b = 8, tokens_per_second = 200 }`
	diags := cliDiagnostics(t, `
data "gpu_recommendation" "typo" {
  `+wl+`
  constraints = { deadline = 1 }
}

data "gpu_recommendation" "ok" {
  `+wl+`
  constraints = { deadline_hours = 10000 }
}

data "gpu_tco" "typo" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "g5.xlarge"
  months        = 1
  storage       = { block = 100 }
}
`)
	warns := diagnosticsWith(diags, "warning", "Object With No Known Attribute Set")
	if len(warns) != 2 {
		t.Fatalf("%d empty-object warnings, want 2 (constraints of typo, storage of gpu_tco): %+v", len(warns), diags)
	}
	for _, w := range warns {
		switch w.Address {
		case "data.gpu_recommendation.typo":
			if !strings.Contains(w.Detail, "constraints is set") || !strings.Contains(w.Detail, "deadline_hours") || w.Range == nil || w.Range.Start.Line != 9 {
				t.Errorf("constraints warning: %+v", w)
			}
		default:
			if w.Address != "data.gpu_tco.typo" || !strings.Contains(w.Detail, "storage is set") || !strings.Contains(w.Detail, "block_gb, object_gb") {
				t.Errorf("storage warning: %+v", w)
			}
		}
	}
	if errs := diagnosticsWith(diags, "error", ""); len(errs) > 0 {
		t.Errorf("errors: %+v", errs)
	}
}

// A pay-as-you-go cluster above a typical regional quota is flagged with
// a warning naming the remedy; a small one is not.
func TestAccWarnings_quota(t *testing.T) {
	diags := cliDiagnostics(t, `
data "gpu_recommendation" "big" {
  workload    = { kind = "training", model_parameters_b = 70, training_tokens_b = 15000 }
  constraints = { accelerators = ["H100"], pricing_models = ["on_demand"] }
  objective   = "time"
}

data "gpu_recommendation" "small" {
  workload    = { kind = "training", model_parameters_b = 1, training_tokens_b = 1 }
  constraints = { max_gpus = 8 }
}
`)
	warns := diagnosticsWith(diags, "warning", "GPU Capacity Beyond A Typical Quota")
	if len(warns) != 1 || warns[0].Address != "data.gpu_recommendation.big" ||
		!strings.Contains(warns[0].Detail, "on demand") || !strings.Contains(warns[0].Detail, "constraints.max_gpus") {
		t.Errorf("quota warnings = %+v, want one on data.gpu_recommendation.big", warns)
	}
}
