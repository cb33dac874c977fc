// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// PriceInfo is the basis and source date of the list price the candidate
// is priced at (its pricing model's); the zero PriceInfo when the catalog
// states none.
func (c *Candidate) PriceInfo() catalog.PriceInfo {
	switch {
	case c.offer == nil:
		return catalog.PriceInfo{}
	case c.offer.serverless != nil:
		return c.offer.serverless.PriceInfo
	}
	_, info, _ := c.offer.o.PriceInfo(c.PricingModel)
	return info
}

// PriceSource is where the candidate's prices come from: the offer's
// source (a built-in source and its date, or the catalog_file entry).
func (c *Candidate) PriceSource() string {
	switch {
	case c.offer == nil:
		return ""
	case c.offer.serverless != nil:
		return c.offer.serverless.Source
	}
	return c.offer.o.Source
}

// explainBasis says when the price that ranks the candidate is derived
// from other published prices rather than published for the offer.
func explainBasis(b *strings.Builder, c *Candidate) {
	info := c.PriceInfo()
	if info.Basis != catalog.PriceDerived {
		return
	}
	fmt.Fprintf(b, ", priced at a %s rate derived from published prices (price_source says how), not one the cloud publishes for %s",
		c.PricingModel, c.InstanceType)
	if !info.AsOf.IsZero() {
		fmt.Fprintf(b, ", as of %s", info.AsOf.Format(time.DateOnly))
	}
}
