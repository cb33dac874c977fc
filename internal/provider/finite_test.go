// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// The property: over random inputs within every input limit, each data
// source and gpu_cluster_spec compute numbers that are all finite (the
// guarded conversion never has to refuse one) and report no provider bug.
// Read (and ModifyPlan) run in-process on configurations built from the
// schemas, so hundreds of inputs take seconds.

// draws makes random inputs within the limits: often a bound itself, else
// log-uniform over the range.
type draws struct{ rng *rand.Rand }

// number draws a value allowed by the limit.
func (d draws) number(l inputLimit) float64 {
	lo, hi := l.l.Min, l.l.Max
	if l.l.MinExclusive || lo <= 0 {
		lo = math.Max(math.Nextafter(lo, math.Inf(1)), math.Min(hi/1e12, 1e-3))
	}
	if l.l.MaxExclusive {
		hi = math.Nextafter(hi, math.Inf(-1))
	}
	var v float64
	switch d.rng.IntN(10) {
	case 0:
		v = lo
	case 1:
		v = hi
	default:
		v = math.Exp(math.Log(lo) + d.rng.Float64()*(math.Log(hi)-math.Log(lo)))
	}
	if l.l.Integer {
		v = math.Max(math.Ceil(lo), math.Min(math.Floor(hi), math.Round(v)))
	}
	return v
}

// maybe is the tftypes number of a drawn value, or null (the default) one
// time in three.
func (d draws) maybe(l inputLimit) tftypes.Value {
	if d.rng.IntN(3) == 0 {
		return tftypes.NewValue(tftypes.Number, nil)
	}
	return tfNumber(d.number(l))
}

func (d draws) pick(ss []string) string { return ss[d.rng.IntN(len(ss))] }

func tfNumber(v float64) tftypes.Value { return tftypes.NewValue(tftypes.Number, big.NewFloat(v)) }

func tfString(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

// object is a value of the object type typ with the given attributes, the
// others null; for an object input (a Dynamic attribute), an object of
// the given attributes alone, as Terraform sends the object a
// configuration writes.
func object(typ tftypes.Type, vals map[string]tftypes.Value) tftypes.Value {
	if typ.Is(tftypes.DynamicPseudoType) {
		types := make(map[string]tftypes.Type, len(vals))
		for name, v := range vals {
			types[name] = v.Type()
		}
		return tftypes.NewValue(tftypes.Object{AttributeTypes: types}, vals)
	}
	ot := objectType(typ)
	all := make(map[string]tftypes.Value, len(ot.AttributeTypes))
	for name, at := range ot.AttributeTypes {
		if v, ok := vals[name]; ok {
			all[name] = v
		} else {
			all[name] = tftypes.NewValue(at, nil)
		}
	}
	return tftypes.NewValue(ot, all)
}

// nonFiniteNumber returns the path of an infinite number in v, or "".
func nonFiniteNumber(v tftypes.Value) string {
	found := ""
	_ = tftypes.Walk(v, func(p *tftypes.AttributePath, val tftypes.Value) (bool, error) {
		if found != "" || val.Type() == nil || !val.Type().Is(tftypes.Number) || !val.IsKnown() || val.IsNull() {
			return found == "", nil
		}
		var f big.Float
		if err := val.As(&f); err != nil || f.IsInf() {
			found = p.String()
		}
		return true, nil
	})
	return found
}

// objectType is a schema's object type.
func objectType(t tftypes.Type) tftypes.Object {
	ot, ok := t.(tftypes.Object)
	if !ok {
		panic(fmt.Sprintf("%v is not an object type", t))
	}
	return ot
}

// readWith runs a data source's Read on the configuration vals.
func readWith(ds datasource.DataSourceWithConfigure, data *providerData, vals func(tftypes.Object) map[string]tftypes.Value) (tftypes.Value, diag.Diagnostics) {
	ctx := context.Background()
	var cr datasource.ConfigureResponse
	ds.Configure(ctx, datasource.ConfigureRequest{ProviderData: data}, &cr)
	var sr datasource.SchemaResponse
	ds.Schema(ctx, datasource.SchemaRequest{}, &sr)
	typ := objectType(sr.Schema.Type().TerraformType(ctx))
	req := datasource.ReadRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: object(typ, vals(typ))}}
	resp := datasource.ReadResponse{State: tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(typ, nil)}}
	ds.Read(ctx, req, &resp)
	return resp.State.Raw, append(cr.Diagnostics, resp.Diagnostics...)
}

// checkFinite fails on a non-finite number, a refused figure or a provider
// bug; other errors (a workload that fits nowhere) are answers.
func checkFinite(t *testing.T, what string, i int, state tftypes.Value, diags diag.Diagnostics) bool {
	t.Helper()
	for _, d := range diags.Errors() {
		switch d.Summary() {
		case "Result Is Not A Finite Number", "Unexpected Provider Error", "Cost Too Large To Compute":
			t.Errorf("%s case %d: %s: %s", what, i, d.Summary(), d.Detail())
			return false
		}
	}
	if p := nonFiniteNumber(state); p != "" {
		t.Errorf("%s case %d: %s is not finite", what, i, p)
		return false
	}
	return !diags.HasError()
}

// randomData is a provider configuration: the built-in catalog with a
// random carbon price and discounts within their limits.
func (d draws) providerData(cat *catalog.Catalog) *providerData {
	data := &providerData{Catalog: cat, Discounts: map[string]float64{}}
	if d.rng.IntN(2) == 0 {
		data.CarbonPriceUSDPerTonne = d.number(limitOf(catalog.LimitCarbonPriceUSDPerTonne))
	}
	for _, c := range cat.CloudIDs() {
		if d.rng.IntN(3) == 0 {
			data.Discounts[c] = d.number(limitOf(catalog.LimitDiscountFraction))
		}
	}
	return data
}

// workload draws a workload object of the given type within the limits.
func (d draws) workload(typ tftypes.Type, presets []string) tftypes.Value {
	kind := d.pick(perf.Kinds)
	params, seq := limitOf(catalog.LimitModelParametersB), limitOf(catalog.LimitSequenceTokens)
	latency := limitOf(catalog.LimitLatencyMs)
	vals := map[string]tftypes.Value{
		"kind":               tfString(kind),
		"model_parameters_b": tfNumber(d.number(params)),
		"sequence_length":    d.maybe(seq),
		"training_tokens_b":  tfNumber(d.number(limitOf(catalog.LimitTrainingTokensB))),
		"tokens_per_second":  tfNumber(d.number(limitOf(catalog.LimitTokensPerSecond))),
		"input_tokens":       d.maybe(seq), "output_tokens": d.maybe(seq),
		"max_time_to_first_token_ms": d.maybe(latency), "max_time_per_output_token_ms": d.maybe(latency),
	}
	if d.rng.IntN(3) == 0 {
		vals["model"] = tfString(d.pick(presets))
		delete(vals, "model_parameters_b")
	}
	if d.rng.IntN(4) == 0 {
		vals["layers"] = d.maybe(limitOf(catalog.LimitModelLayers))
		vals["hidden_size"] = d.maybe(limitOf(catalog.LimitModelHiddenSize))
		vals["kv_heads"] = d.maybe(limitOf(catalog.LimitModelKVHeads))
	}
	if kind == perf.KindFineTuning {
		vals["fine_tuning_method"] = tfString(d.pick(perf.Methods))
	}
	return object(typ, vals)
}

func TestComputedNumbersAreFinite(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	presets, err := catalog.BuiltinModelPresets()
	if err != nil {
		t.Fatal(err)
	}
	d := draws{rand.New(rand.NewPCG(15, 2026))}
	const n = 150
	var answered [5]int
	for i := range n {
		if finiteTCO(t, d, cat, i) {
			answered[0]++
		}
		if finiteEstimate(t, d, cat, presets.IDs(), i) {
			answered[1]++
		}
		if finiteRecommendation(t, d, cat, presets.IDs(), i) {
			answered[2]++
		}
		if finiteOffers(t, d, cat, i) {
			answered[3]++
		}
		if finiteClusterSpec(t, d, cat, i) {
			answered[4]++
		}
	}
	state, diags := readWith(&acceleratorsDataSource{}, d.providerData(cat), func(tftypes.Object) map[string]tftypes.Value { return nil })
	checkFinite(t, "gpu_accelerators", 0, state, diags)
	t.Logf("answered of %d: gpu_tco %d, gpu_estimate %d, gpu_recommendation %d, gpu_offers %d, gpu_cluster_spec %d",
		n, answered[0], answered[1], answered[2], answered[3], answered[4])
	if answered[0] < n/2 || answered[1] < n/4 || answered[2] < n/10 || answered[3] < n/2 || answered[4] < n/2 {
		t.Errorf("too few inputs were answered to exercise the computations: %v of %d", answered, n)
	}
}

func finiteTCO(t *testing.T, d draws, cat *catalog.Catalog, i int) bool {
	o := cat.Offers[d.rng.IntN(len(cat.Offers))]
	state, diags := readWith(&tcoDataSource{}, d.providerData(cat), func(typ tftypes.Object) map[string]tftypes.Value {
		data, mix := limitOf(catalog.LimitDataGB), map[string]tftypes.Value{}
		for _, pm := range catalog.PricingModelNames(catalog.InstancePricingModels) {
			if _, ok := o.Price(catalog.PricingModel(pm)); ok && len(mix) == 0 {
				mix[pm] = tfNumber(1)
			}
		}
		return map[string]tftypes.Value{
			"cloud": tfString(o.Cloud), "region": tfString(o.Region), "instance_type": tfString(o.InstanceType),
			"months":         tfNumber(d.number(limitOf(catalog.LimitMonths))),
			"instance_count": d.maybe(limitOf(catalog.LimitNodeCount)),
			"utilization":    d.maybe(limitOf(catalog.LimitFraction)),
			"pricing_mix":    tftypes.NewValue(typ.AttributeTypes["pricing_mix"], mix),
			"storage":        object(typ.AttributeTypes["storage"], map[string]tftypes.Value{"block_gb": d.maybe(data), "object_gb": d.maybe(data)}),
			"network": object(typ.AttributeTypes["network"], map[string]tftypes.Value{
				"egress_gb_per_month": d.maybe(data), "inter_region_gb_per_month": d.maybe(data)}),
			"extra_monthly_usd": tftypes.NewValue(typ.AttributeTypes["extra_monthly_usd"], map[string]tftypes.Value{
				"a": tfNumber(d.number(limitOf(catalog.LimitMonthlyCostUSD))), "b": tfNumber(d.number(limitOf(catalog.LimitMonthlyCostUSD)))}),
		}
	})
	return checkFinite(t, "gpu_tco", i, state, diags)
}

func finiteEstimate(t *testing.T, d draws, cat *catalog.Catalog, presets []string, i int) bool {
	acc := cat.Accelerators[d.rng.IntN(len(cat.Accelerators))]
	state, diags := readWith(&estimateDataSource{}, d.providerData(cat), func(typ tftypes.Object) map[string]tftypes.Value {
		gpus := d.number(limitOf(catalog.LimitGPUCount))
		return map[string]tftypes.Value{
			"workload":      d.workload(typ.AttributeTypes["workload"], presets),
			"accelerator":   tfString(acc.ID),
			"gpu_count":     tfNumber(gpus),
			"gpus_per_node": d.maybe(limitOf(catalog.LimitGPUsPerInstance).atMost(gpus)),
			"network_gbps":  d.maybe(limitOf(catalog.LimitNetworkGbps).positive()),
		}
	})
	return checkFinite(t, "gpu_estimate", i, state, diags)
}

func finiteRecommendation(t *testing.T, d draws, cat *catalog.Catalog, presets []string, i int) bool {
	state, diags := readWith(&recommendationDataSource{}, d.providerData(cat), func(typ tftypes.Object) map[string]tftypes.Value {
		c := map[string]tftypes.Value{}
		for name, l := range map[string]inputLimit{
			"max_hourly_cost_usd": limitOf(catalog.LimitHourlyCostUSD).positive(), "max_total_cost_usd": limitOf(catalog.LimitTotalCostUSD).positive(),
			"deadline_hours": limitOf(catalog.LimitHours).positive(), "max_gpus": limitOf(catalog.LimitGPUCount),
			"max_nodes": limitOf(catalog.LimitNodeCount), "max_co2e_kg": limitOf(catalog.LimitCO2eKg).positive(),
		} {
			if d.rng.IntN(4) == 0 {
				c[name] = tfNumber(d.number(l))
			}
		}
		return map[string]tftypes.Value{
			"workload":    d.workload(typ.AttributeTypes["workload"], presets),
			"constraints": object(typ.AttributeTypes["constraints"], c),
			"objective":   tfString(d.pick([]string{"cost", "time", "carbon", "balanced"})),
			"distinct_by": tfString(d.pick([]string{"instance_type", "region", "deployment"})),
			"top":         d.maybe(topLimit()),
		}
	})
	return checkFinite(t, "gpu_recommendation", i, state, diags)
}

func finiteOffers(t *testing.T, d draws, cat *catalog.Catalog, i int) bool {
	state, diags := readWith(&offersDataSource{}, d.providerData(cat), func(typ tftypes.Object) map[string]tftypes.Value {
		return map[string]tftypes.Value{
			"clouds":            tftypes.NewValue(typ.AttributeTypes["clouds"], []tftypes.Value{tfString(d.pick(cat.CloudIDs()))}),
			"min_gpus":          d.maybe(limitOf(catalog.LimitGPUsPerInstance)),
			"min_gpu_memory_gb": d.maybe(limitOf(catalog.LimitAcceleratorMemoryGB).orZero()),
		}
	})
	return checkFinite(t, "gpu_offers", i, state, diags)
}

// finiteClusterSpec plans a gpu_cluster_spec of a random offer's hardware.
func finiteClusterSpec(t *testing.T, d draws, cat *catalog.Catalog, i int) bool {
	ctx := context.Background()
	o := cat.Offers[d.rng.IntN(len(cat.Offers))]
	if o.GPUs == 0 {
		return true // fractional offers are not rendered as specs
	}
	r := &clusterSpecResource{}
	var cr resource.ConfigureResponse
	r.Configure(ctx, resource.ConfigureRequest{ProviderData: d.providerData(cat)}, &cr)
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	typ := objectType(sr.Schema.Type().TerraformType(ctx))
	data := limitOf(catalog.LimitDataGB)
	cfg := object(typ, map[string]tftypes.Value{
		"name": tfString("x"), "cloud": tfString(o.Cloud), "accelerator": tfString(o.Accelerator),
		"gpus_per_node": tfNumber(float64(o.GPUs)), "nodes": tfNumber(d.number(limitOf(catalog.LimitNodeCount).atMost(1000))),
		"pricing_model": tfString(string(catalog.OnDemand)),
		"storage": object(typ.AttributeTypes["storage"], map[string]tftypes.Value{
			"block_gb": tfNumber(math.Round(d.number(data))), "object_gb": tfNumber(math.Round(d.number(data)))}),
		"labels": tftypes.NewValue(typ.AttributeTypes["labels"], map[string]tftypes.Value{}),
	})
	req := resource.ModifyPlanRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: cfg}, Plan: tfsdk.Plan{Schema: sr.Schema, Raw: cfg},
		State: tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(typ, nil)}}
	resp := resource.ModifyPlanResponse{Plan: req.Plan}
	r.ModifyPlan(ctx, req, &resp)
	return checkFinite(t, "gpu_cluster_spec", i, resp.Plan.Raw, append(cr.Diagnostics, resp.Diagnostics...))
}
