// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package pricelist reads the clouds' own price-list files offline — the AWS
// Price List EC2 offer file, Azure Retail Prices API pages and Google Cloud
// Billing Catalog SKU pages — into hourly prices of the instance types the
// catalog knows, and writes them as a catalog overlay (the provider's
// catalog_file). The generator of the built-in catalog reads the same files,
// so a maintainers' refresh and a user's overlay come from one parser.
//
// The package is pure Go with no terraform-plugin imports: it reads bytes
// and writes bytes. Formats and filtering rules: docs/guides/price-list-overlay.md
// and internal/catalog/data/SOURCES.md.
package pricelist
