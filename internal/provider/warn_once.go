// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"sort"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// warnOnce remembers the warnings a configured provider has shown.
// Terraform starts the provider for each plan and configures it once per
// provider block, and every data source of the plan reads through that one
// configuration: a warning shown through warnOnce appears once per plan
// (per provider block), however many data sources run into it.
type warnOnce struct {
	mu   sync.Mutex
	seen map[string]bool
}

// add adds the warning unless this provider already showed the same
// summary and detail.
func (w *warnOnce) add(diags *diag.Diagnostics, summary, detail string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := summary + "\x00" + detail
	if w.seen[key] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[key] = true
	diags.AddWarning(summary, detail)
}

// noTDPDoc names, for gpu_tco's docs, the built-in accelerators without a
// power figure: their energy is 0, with a warning once per plan.
func noTDPDoc() string {
	cat, err := catalog.Builtin()
	if err != nil {
		return ""
	}
	var ids []string
	for _, a := range cat.Accelerators {
		if a.TDPWatts <= 0 {
			ids = append(ids, a.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	sort.Strings(ids)
	return " 0 for an accelerator without a power figure in the catalog (built in: " + codeList(ids) +
		"; their vendors publish none), with a warning shown once per plan."
}
