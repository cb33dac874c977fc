// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// OverlayOffer is an offer entry of a catalog overlay file (the format of
// the provider's catalog_file, docs/guides/catalog-overlay.md). Nil fields
// are not written: the catalog's value stays.
type OverlayOffer struct {
	Cloud         string          `json:"cloud"`
	InstanceType  string          `json:"instance_type"`
	Region        string          `json:"region"`
	Accelerator   *string         `json:"accelerator,omitempty"`
	GPUs          *int            `json:"gpus,omitempty"`
	GPUFraction   *float64        `json:"gpu_fraction,omitempty"`
	VCPUs         *int            `json:"vcpus,omitempty"`
	MemoryGB      *float64        `json:"memory_gb,omitempty"`
	NetworkGbps   *float64        `json:"network_gbps,omitempty"`
	Fabric        *catalog.Fabric `json:"fabric,omitempty"`
	OnDemandUSD   float64         `json:"on_demand_usd"`
	SpotUSD       *float64        `json:"spot_usd,omitempty"`
	Reserved1YUSD *float64        `json:"reserved_1y_usd,omitempty"`
	Reserved3YUSD *float64        `json:"reserved_3y_usd,omitempty"`
	// PriceBasis and PriceAsOf: the file's prices are published, dated
	// by the file.
	PriceBasis catalog.PriceBasis `json:"price_basis,omitempty"`
	PriceAsOf  string             `json:"price_as_of,omitempty"`
	Source     string             `json:"source"`
}

// Overlay is a catalog overlay built from price-list files.
type Overlay struct {
	Offers []OverlayOffer `json:"offers"`
	// Files describes the inputs (cloud, file, date, source) for the header.
	Files []string `json:"-"`
	// Writer names the command in the header; "" = `make overlay`.
	Writer string `json:"-"`
}

// BuildOverlay turns price-list results into overlay offers for cat: an
// override of each existing offer (cloud, instance type, region) with the
// file's prices, or a new offer, with the instance's specs from the
// catalog, in a region the catalog has metadata for. A catalog spot or
// reserved price the file does not give is cleared when it would not be
// below the file's on-demand price. It returns notes on what was left out.
func BuildOverlay(results []*Result, cat *catalog.Catalog) (*Overlay, []string) {
	ov := &Overlay{}
	var notes []string
	seen := map[string]string{}
	for _, r := range results {
		ov.Files = append(ov.Files, fmt.Sprintf("%s: %s (dated %s)", r.Cloud, r.Source, r.Date))
		for _, p := range r.Prices {
			key := p.Cloud + "/" + p.InstanceType + "/" + p.Region
			if prev, dup := seen[key]; dup {
				notes = append(notes, fmt.Sprintf("%s: priced by both %s and %s; the first is kept", key, prev, r.File))
				continue
			}
			e, why := overlayEntry(&p, cat)
			if why != "" {
				notes = append(notes, key+": "+why)
				if e == nil {
					continue
				}
			}
			e.Source, e.PriceBasis, e.PriceAsOf = r.Source, catalog.PricePublished, r.Date
			seen[key] = r.File
			ov.Offers = append(ov.Offers, *e)
		}
	}
	sort.SliceStable(ov.Offers, func(i, j int) bool {
		a, b := ov.Offers[i], ov.Offers[j]
		if a.Cloud != b.Cloud {
			return a.Cloud < b.Cloud
		}
		if a.InstanceType != b.InstanceType {
			return a.InstanceType < b.InstanceType
		}
		return a.Region < b.Region
	})
	return ov, notes
}

// overlayEntry builds the entry of one price; why explains a change or a
// skip (nil entry).
func overlayEntry(p *Price, cat *catalog.Catalog) (*OverlayOffer, string) {
	e := &OverlayOffer{Cloud: p.Cloud, InstanceType: p.InstanceType, Region: p.Region, OnDemandUSD: p.OnDemandUSD,
		SpotUSD: optional(p.SpotUSD), Reserved1YUSD: optional(p.Reserved1YUSD), Reserved3YUSD: optional(p.Reserved3YUSD)}
	if o, ok := cat.Offer(p.Cloud, p.InstanceType, p.Region); ok {
		var cleared []string
		for _, f := range []struct {
			name string
			dst  **float64
			old  float64
		}{{"spot_usd", &e.SpotUSD, o.SpotUSD}, {"reserved_1y_usd", &e.Reserved1YUSD, o.Reserved1YUSD}, {"reserved_3y_usd", &e.Reserved3YUSD, o.Reserved3YUSD}} {
			if *f.dst == nil && f.old > 0 && f.old >= p.OnDemandUSD {
				zero := 0.0
				*f.dst = &zero
				cleared = append(cleared, fmt.Sprintf("%s %v", f.name, f.old))
			}
		}
		if len(cleared) > 0 {
			return e, fmt.Sprintf("the catalog's %s would not be below the new on-demand %v: cleared", strings.Join(cleared, ", "), p.OnDemandUSD)
		}
		return e, ""
	}
	if _, ok := cat.Region(p.Cloud, p.Region); !ok {
		return nil, "region has no metadata in the catalog (add it under regions in an overlay to import it); left out"
	}
	t := cat.OffersOf(p.Cloud, p.InstanceType)[0]
	acc, vcpus, mem, net, fab := t.Accelerator, t.VCPUs, t.MemoryGB, t.NetworkGbps, t.Fabric
	e.Accelerator, e.VCPUs, e.MemoryGB, e.NetworkGbps, e.Fabric = &acc, &vcpus, &mem, &net, &fab
	if t.Fractional() {
		f := t.GPUFraction
		e.GPUFraction = &f
	} else {
		g := t.GPUs
		e.GPUs = &g
	}
	return e, ""
}

func optional(v float64) *float64 {
	if v <= 0 {
		return nil
	}
	return &v
}

// YAML renders the overlay with a header naming its sources.
func (ov *Overlay) YAML() ([]byte, error) {
	body, err := yaml.Marshal(ov)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	writer := ov.Writer
	if writer == "" {
		writer = "`make overlay`"
	}
	b.WriteString("# Catalog overlay written by " + writer + " (internal/catalog/pricelist) from the clouds' price lists.\n")
	b.WriteString("# Use it as the provider's catalog_file. Prices are hourly USD for the whole instance.\n")
	for _, f := range ov.Files {
		b.WriteString("# - " + f + "\n")
	}
	b.Write(body)
	return b.Bytes(), nil
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so a failure never leaves a half-written file.
func WriteFileAtomic(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err = tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
