// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
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
	w.addKeyed(diags, summary+"\x00"+detail, nil, summary, detail)
}

// addKeyed adds the warning unless this provider already showed one with
// the same key (one warning per plan for a kind of problem, whatever its
// details); at, when not nil, is the attribute it is about.
func (w *warnOnce) addKeyed(diags *diag.Diagnostics, key string, at *path.Path, summary, detail string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen[key] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[key] = true
	if at != nil {
		diags.AddAttributeWarning(*at, summary, detail)
		return
	}
	diags.AddWarning(summary, detail)
}

// noTDPDoc says, for gpu_tco's docs, what happens to an accelerator
// without a power figure. It names no accelerators: the schema is built at
// every plugin start and must not load the catalog (which accelerators
// lack one is in gpu_accelerators, tdp_watts 0).
func noTDPDoc() string {
	return " 0 for an accelerator without a power figure in the catalog (`gpu_accelerators` shows `tdp_watts = 0`; " +
		"for the Inferentia, Trainium and TPU parts their vendors publish none), with a warning shown once per plan."
}
