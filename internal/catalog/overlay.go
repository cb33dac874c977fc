// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// overlayFile is the top level of a user catalog file (see OVERLAY.md).
// Entries are decoded one by one so errors can name the entry.
type overlayFile struct {
	Clouds       []json.RawMessage `json:"clouds"`
	Regions      []json.RawMessage `json:"regions"`
	Accelerators []json.RawMessage `json:"accelerators"`
	Offers       []json.RawMessage `json:"offers"`
}

// overlayOffer is an offer in an overlay. cloud, instance_type and region
// identify it; when that offer exists the given fields override it (for
// example only on_demand_usd for a negotiated price), otherwise it is a new
// offer and accelerator, gpus (or gpu_fraction) and on_demand_usd (or
// capacity_block_usd) are required.
type overlayOffer struct {
	Cloud         string   `json:"cloud"`
	Region        string   `json:"region"`
	InstanceType  string   `json:"instance_type"`
	Accelerator   *string  `json:"accelerator"`
	GPUs          *int     `json:"gpus"`
	GPUFraction   *float64 `json:"gpu_fraction"`
	GPUMemoryGB   *float64 `json:"gpu_memory_gb"`
	VCPUs         *int     `json:"vcpus"`
	MemoryGB      *float64 `json:"memory_gb"`
	NetworkGbps   *float64 `json:"network_gbps"`
	Fabric        *Fabric  `json:"fabric"`
	OnDemandUSD   *float64 `json:"on_demand_usd"`
	SpotUSD       *float64 `json:"spot_usd"`
	Reserved1YUSD *float64 `json:"reserved_1y_usd"`
	Reserved3YUSD *float64 `json:"reserved_3y_usd"`
	CapacityBlock *float64 `json:"capacity_block_usd"`
	Source        *string  `json:"source"`
}

// WithOverlay returns a new catalog: the receiver with the clouds, regions,
// accelerators and offers of the user catalog file at path added or
// overridden. The file is JSON (.json) or YAML (.yaml, .yml). Any error
// rejects the whole file; the receiver is never modified.
func (c *Catalog) WithOverlay(path string) (*Catalog, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("catalog file: %w", err)
	}
	return c.WithOverlayBytes(filepath.Base(path), b)
}

// WithOverlayBytes is WithOverlay for in-memory content; name is used for
// the format (by extension) and in error messages.
func (c *Catalog) WithOverlayBytes(name string, data []byte) (*Catalog, error) {
	js, err := overlayJSON(name, data)
	if err != nil {
		return nil, err
	}
	var f overlayFile
	if err := strictDecode(js, &f); err != nil {
		return nil, fmt.Errorf("%s: %s", name, decodeMsg(err))
	}
	out, err := c.apply(&f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

func overlayJSON(name string, data []byte) ([]byte, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return data, nil
	case ".yaml", ".yml":
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: malformed YAML: %w", name, err)
		}
		return js, nil
	}
	return nil, fmt.Errorf("%s: unknown catalog file format: use .json, .yaml or .yml", name)
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the top-level object")
	}
	return nil
}

// decodeMsg turns encoding/json errors into messages naming the field.
func decodeMsg(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("field %q: cannot use a JSON %s as %s", te.Field, te.Value, te.Type)
		}
		return fmt.Sprintf("cannot use a JSON %s as %s", te.Value, te.Type)
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return msg
}

// entryName names an overlay entry from its raw JSON identity fields.
func entryName(raw json.RawMessage, keys ...string) string {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprint(m[k]))
	}
	return strings.Join(parts, "/")
}

func (c *Catalog) apply(f *overlayFile) (*Catalog, error) {
	n := &Catalog{Date: c.Date, ExchangeRates: c.ExchangeRates,
		Accelerators: append([]*Accelerator(nil), c.Accelerators...),
		Clouds:       append([]*Cloud(nil), c.Clouds...),
		Regions:      append([]*Region(nil), c.Regions...),
		Offers:       append([]*Offer(nil), c.Offers...),
		Serverless:   c.Serverless}

	for i, raw := range f.Clouds {
		cl := &Cloud{}
		where := fmt.Sprintf("clouds[%d] (%s)", i, entryName(raw, "id"))
		if err := strictDecode(raw, cl); err != nil {
			return nil, fmt.Errorf("%s: %s", where, decodeMsg(err))
		}
		if err := validateCloud(cl); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		n.Clouds = replaceOrAdd(n.Clouds, cl, func(x *Cloud) bool { return x.ID == cl.ID })
	}
	for i, raw := range f.Accelerators {
		a := &Accelerator{}
		where := fmt.Sprintf("accelerators[%d] (%s)", i, entryName(raw, "id"))
		if err := strictDecode(raw, a); err != nil {
			return nil, fmt.Errorf("%s: %s", where, decodeMsg(err))
		}
		if err := validateAccelerator(a); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		n.Accelerators = replaceOrAdd(n.Accelerators, a, func(x *Accelerator) bool { return x.ID == a.ID })
	}
	if err := n.checkUnique(); err != nil {
		return nil, err
	}
	n.index()
	for i, raw := range f.Regions {
		r := &Region{}
		where := fmt.Sprintf("regions[%d] (%s)", i, entryName(raw, "cloud", "id"))
		if err := strictDecode(raw, r); err != nil {
			return nil, fmt.Errorf("%s: %s", where, decodeMsg(err))
		}
		if r.Compliance == nil {
			r.Compliance = []string{}
		}
		if r.Partition == "" {
			r.Partition = "commercial"
		}
		if err := n.validateRegion(r); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		n.Regions = replaceOrAdd(n.Regions, r, func(x *Region) bool { return x.Cloud == r.Cloud && x.ID == r.ID })
	}
	n.index()
	for i, raw := range f.Offers {
		var ov overlayOffer
		where := fmt.Sprintf("offers[%d] (%s)", i, entryName(raw, "cloud", "instance_type", "region"))
		if err := strictDecode(raw, &ov); err != nil {
			return nil, fmt.Errorf("%s: %s", where, decodeMsg(err))
		}
		o, err := n.mergeOffer(&ov)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if err := n.validateOffer(o); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		key := o.Cloud + "/" + o.InstanceType + "/" + o.Region
		n.Offers = replaceOrAdd(n.Offers, o, func(x *Offer) bool { return x.Cloud+"/"+x.InstanceType+"/"+x.Region == key })
		n.offerByKey[key] = o
	}
	n.index()
	return n, nil
}

// replaceOrAdd replaces the first element matching eq, else appends v.
func replaceOrAdd[T any](s []*T, v *T, eq func(*T) bool) []*T {
	for i, x := range s {
		if eq(x) {
			s[i] = v
			return s
		}
	}
	return append(s, v)
}

// mergeOffer builds the resulting offer of an overlay entry: a copy of the
// existing offer with the given fields overridden, or a new offer.
func (c *Catalog) mergeOffer(ov *overlayOffer) (*Offer, error) {
	if ov.Cloud == "" || ov.InstanceType == "" || ov.Region == "" {
		return nil, errors.New(`fields "cloud", "instance_type" and "region" are required`)
	}
	var o Offer
	if prev, ok := c.offerByKey[ov.Cloud+"/"+ov.InstanceType+"/"+ov.Region]; ok {
		o = *prev
		if ov.OnDemandUSD != nil || ov.SpotUSD != nil || ov.Reserved1YUSD != nil || ov.Reserved3YUSD != nil {
			// Overlay prices are USD: drop the native-currency figures.
			o.Currency, o.NativeOnDemand, o.NativeSpot, o.NativeReserved1Y, o.NativeReserved3Y = "USD", 0, 0, 0, 0
		}
		if ov.Reserved1YUSD != nil || ov.Reserved3YUSD != nil {
			o.ReservedDerived = false
		}
		o.Source = "overlay over: " + prev.Source
	} else {
		if ov.Accelerator == nil || (ov.GPUs == nil && ov.GPUFraction == nil) || (ov.OnDemandUSD == nil && ov.CapacityBlock == nil) {
			return nil, errors.New(`new offer: fields "accelerator", "gpus" (or "gpu_fraction") and "on_demand_usd" (or "capacity_block_usd") are required (no built-in offer has this cloud/instance_type/region)`)
		}
		o = Offer{Cloud: ov.Cloud, Region: ov.Region, InstanceType: ov.InstanceType, Fabric: FabricNone, Currency: "USD", Source: "overlay"}
	}
	if ov.Accelerator != nil {
		o.Accelerator = *ov.Accelerator
		if a, ok := c.Accelerator(o.Accelerator); ok {
			o.Accelerator = a.ID // accept aliases in user files
		}
	}
	setInt(&o.GPUs, ov.GPUs)
	setF(&o.GPUFraction, ov.GPUFraction)
	setF(&o.CapacityBlockUSD, ov.CapacityBlock)
	setInt(&o.VCPUs, ov.VCPUs)
	setF(&o.MemoryGB, ov.MemoryGB)
	setF(&o.NetworkGbps, ov.NetworkGbps)
	setF(&o.OnDemandUSD, ov.OnDemandUSD)
	setF(&o.SpotUSD, ov.SpotUSD)
	setF(&o.Reserved1YUSD, ov.Reserved1YUSD)
	setF(&o.Reserved3YUSD, ov.Reserved3YUSD)
	if ov.Fabric != nil {
		o.Fabric = *ov.Fabric
	}
	if ov.Source != nil {
		o.Source = *ov.Source
	}
	switch {
	case ov.GPUMemoryGB != nil:
		o.GPUMemoryGB = *ov.GPUMemoryGB
	case ov.Accelerator != nil || ov.GPUs != nil || ov.GPUFraction != nil:
		if a, ok := c.Accelerator(o.Accelerator); ok {
			o.GPUMemoryGB = o.GPUCount() * a.MemoryGB
		}
	}
	return &o, nil
}

func setF(dst *float64, v *float64) {
	if v != nil {
		*dst = *v
	}
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}
