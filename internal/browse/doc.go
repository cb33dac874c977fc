// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package browse is what the catalog's list data sources show: the model
// presets (gpu_models), the regions (gpu_regions) and a summary of the
// offers (gpu_offers.summary), filtered by names as users write them and
// rendered as fixed-width tables. Pure: no Terraform imports; every
// unknown name is an inputerr on the attribute that holds it, with the
// catalog's suggestion for that kind of name.
package browse
