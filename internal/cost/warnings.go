// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import "fmt"

// NoTDPWarning is the warning of a TCO whose accelerator has no power
// figure. It names the accelerator only, not the instance, so the provider
// can show it once per plan for all instances of the accelerator.
func NoTDPWarning(accelerator string) string {
	return fmt.Sprintf("%s has no power figure (TDP) in the catalog: the energy, CO2e and carbon cost of its instances are 0, "+
		"not measured. Shown once per plan.", accelerator)
}
