// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

var (
	_ datasource.DataSourceWithConfigure      = (*estimateDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*estimateDataSource)(nil)
)

// NewEstimateDataSource returns the gpu_estimate data source.
func NewEstimateDataSource() datasource.DataSource {
	return &estimateDataSource{}
}

type estimateDataSource struct {
	data *providerData
}

func (d *estimateDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_estimate"
}

func (d *estimateDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	gpus := limitOf(catalog.LimitGPUCount)
	perNode := limitOf(catalog.LimitGPUsPerInstance)
	resp.Schema = schema.Schema{
		MarkdownDescription: "The benchmark model alone, for a fixed hardware choice: whether a training, fine-tuning or inference " +
			"workload fits `gpu_count` accelerators, how fast it runs and how long it takes. The model picks the fastest parallel " +
			"layout that fits (tensor parallel inside a node or an NVLink domain that spans nodes, such as GB200 NVL72; pipeline " +
			"and data parallel across nodes; for mixture-of-experts models, expert parallelism with data-parallel attention; for " +
			"inference, aggregated or disaggregated prefill/decode serving) and is calibrated against MLPerf, InferenceX and " +
			"published training runs; see the [accuracy report](../guides/model-accuracy.md) for its measured error. Set " +
			"`workload.model` to size the workload from a model preset (`deepseek-r1`, `llama-3.1-70b`, …).\n\n" +
			"When the workload does not fit, `fits` is `false`, the performance outputs are null and a warning says how many GB " +
			"per GPU are missing and what would fit. Rounding (so plans are identical on every machine): hours, GB, tokens/s and " +
			"milliseconds to 0.01, `mfu` to 4 decimals.",
		Attributes: map[string]schema.Attribute{
			"workload": workloadAttribute(false),
			"accelerator": schema.StringAttribute{Required: true,
				MarkdownDescription: "Accelerator ID or alias from the catalog (including `catalog_file` additions), case-insensitive, " +
					"for example `H100`, `A100-80GB`, `MI300X`, `h100-sxm`. See the `gpu_accelerators` data source for the list."},
			"gpu_count": schema.Int64Attribute{Required: true,
				MarkdownDescription: "Total number of accelerators, for example `8` (one node) or `2048`." + gpus.Doc(),
				CustomType:          gpus.Int64()},
			"gpus_per_node": intInput("Accelerators per node, i.e. per scale-up domain (NVLink, Infinity Fabric): tensor parallelism "+
				"never crosses a node. At most `gpu_count`. Default `min(gpu_count, "+defaultGPUsPerNode()+")`.", perNode),
			"network_gbps": floatInput("Scale-out network bandwidth of one node, Gbit/s, for example `3200` for 8× 400 Gbit/s "+
				"InfiniBand/EFA or `100` for plain Ethernet. The per-GPU share sets the fabric class the model assumes "+
				"(InfiniBand-class, RoCE or TCP). Default: "+defaultNetworkDoc()+". TPUs (`interconnect_kind` `ici`) are the "+
				"exception: when `gpu_count` fits in one pod (`nvlink_domain_gpus`), the hosts of the slice talk over the chips' own "+
				"ICI, at the chip's ICI bandwidth unless this is set; a larger TPU job is multislice over the data-centre network.",
				limitOf(catalog.LimitNetworkGbps).positive()),

			"fits": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether weights, optimizer state and activations (training) or weights plus one request's KV " +
					"cache (inference) fit the accelerators' memory under the best layout, after a runtime reserve."},
			"memory_per_gpu_gb": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Memory one GPU needs under the chosen layout, GB (decimal). Training: model and optimizer " +
					"states plus activations; inference: weights plus the KV cache of one request (the minimum to serve). " +
					"When the workload does not fit, what the least demanding layout needs."},
			"tokens_per_second": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Training and fine-tuning: tokens processed per second across all GPUs. Inference: the most " +
					"output tokens per second these GPUs sustain with as many replicas as fit, within the latency limits when set " +
					"(`0` when the limits cannot be met at all). Null when the workload does not fit."},
			"estimated_hours": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Training and fine-tuning: wall-clock hours to process `training_tokens_b`, including the " +
					"goodput loss of restarts and checkpoints, to 0.01 h. Multiply by `gpu_count` for GPU-hours. Null for inference and " +
					"when the workload does not fit."},
			"estimated_seconds": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "The same wall-clock time in seconds, to 0.01 s: for runs of minutes, where `estimated_hours` " +
					"(0.01 h = 36 s) is too coarse. Null for inference and when the workload does not fit."},
			"global_batch_tokens": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Training and fine-tuning: the global batch the estimate ran, tokens per optimizer step " +
					"(`workload.global_batch_tokens`, or its default for the model size and GPU count). Null for inference and when " +
					"the workload does not fit."},
			"mfu": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Model-FLOPs utilisation, 0–1: useful model FLOPs per second over the GPUs' dense peak at the " +
					"workload's precision. Training: the usual MFU (6·N FLOPs per token). Inference: the prefill and decode FLOPs " +
					"actually delivered at `tokens_per_second` (2·N per token), which is low when decode is memory-bound. " +
					"Null when the workload does not fit."},
			"time_to_first_token_ms": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Inference: mean time to first token at the chosen batch size, milliseconds (the limit " +
					"`max_time_to_first_token_ms` bounds the 99th percentile, which the model puts at the fitted p99/mean ratio " +
					"times this). Null for training and fine-tuning and when the workload does not fit."},
			"time_per_output_token_ms": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Inference: mean time per generated token of one request at the chosen batch size, " +
					"milliseconds (with speculative decoding, per token emitted). Null for training and fine-tuning and when the " +
					"workload does not fit."},
			"replicas": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Inference: model replicas the GPUs hold (each spans `gpu_count / replicas` or fewer GPUs). " +
					"Null for training and fine-tuning and when the workload does not fit."},
			"replicas_needed": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Inference with `tokens_per_second` set: replicas of the same shape needed to serve that " +
					"throughput; when it exceeds `replicas` a warning says how many GPUs that takes. Null otherwise."},
			"parallelism":      parallelismSchema(),
			"serving_layout":   servingLayoutSchema(),
			"throughput_curve": throughputCurveSchema(),
			"binding": schema.StringAttribute{Computed: true,
				MarkdownDescription: "What limits the estimate: `compute`, `hbm_bandwidth`, `network`, `latency` or `memory` " +
					"(does not fit)."},
			"explanation": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The model's one-sentence explanation: layout (tensor/pipeline/data parallel), nodes and " +
					"fabric, what binds, and the headline figures."},
		},
	}
}

// parallelismKeys is the key table of gpu_estimate's parallelism: the
// degrees the user pins.
var parallelismKeys = sync.OnceValue(func() *objectKeys[perf.Parallelism] {
	type P = perf.Parallelism
	degree := limitOf(catalog.LimitParallelDegree)
	const chosen = "searched (after the read: the degree the estimate chose)"
	return &objectKeys[P]{keys: []key[P]{
		{name: "tensor", doc: "GPUs one tensor-parallel group splits each layer over. Training: inside a node. Inference: the GPUs " +
			"of a replica's pipeline stage (an NVLink domain may span nodes, as GB200 NVL72 does); `1` with `expert` set means " +
			"data-parallel attention.", def: chosen, is: whole(degree, func(p *P) *int { return &p.Tensor })},
		{name: "pipeline", doc: "Pipeline stages, each holding a share of the layers.", def: chosen,
			is: whole(degree, func(p *P) *int { return &p.Pipeline })},
		{name: "expert", doc: "Mixture of experts: GPUs the routed experts are spread over. Training: among the data-parallel ranks " +
			"(it must divide `data`). Inference: the GPUs of a replica that runs attention data-parallel and its experts " +
			"expert-parallel, with an all-to-all per MoE layer; `1` rules expert parallelism out.", def: chosen,
			is: whole(degree, func(p *P) *int { return &p.Expert })},
		{name: "context", doc: "Training: GPUs each sequence is split over (context parallelism, a ring exchange of keys and values " +
			"in attention), for long sequences. Inference: always `1` (serving splits no sequence).", def: chosen,
			is: whole(degree, func(p *P) *int { return &p.Context })},
		{name: "data", doc: "Training: data-parallel ranks (model replicas, each at least one sequence of the global batch). " +
			"Inference: replicas (decode workers when disaggregated).", def: chosen, is: whole(degree, func(p *P) *int { return &p.Data })},
	}}
})

// parallelismSchema is gpu_estimate's parallelism attribute: the degrees
// the user pins, and the layout the estimate ran.
func parallelismSchema() schema.DynamicAttribute {
	keys := parallelismKeys()
	return schema.DynamicAttribute{Optional: true, Computed: true, Validators: []validator.Dynamic{objectValidator{keys}},
		MarkdownDescription: objectDoc("The parallel layout. Set any of the degrees to pin them, to reproduce a known deployment, "+
			"for example `parallelism = { tensor = 8, pipeline = 4 }`; the ones left out are searched as usual. After the read it "+
			"holds the layout the estimate ran (pinned or chosen, every degree), so a module can show it or pin it next time. A pin "+
			"the hardware cannot run (tensor parallelism beyond a node in training, more GPUs than `gpu_count`, more pipeline stages "+
			"than layers, replicas that do not divide `gpu_count`) or whose memory does not hold the model is an error, not an "+
			"estimate that ignores it. Inference with any degree pinned is served aggregated: the pinned shape is the replica. Null "+
			"when the workload does not fit and nothing is pinned.", keys),
	}
}

var parallelismAttrTypes = map[string]attr.Type{
	"tensor": types.NumberType, "pipeline": types.NumberType, "expert": types.NumberType, "context": types.NumberType, "data": types.NumberType,
}

// readParallelism is the layout the configuration pins (zero degrees
// unpinned), its problems on diags (the validator reported them at
// validate; here for values known only at plan).
func readParallelism(ctx context.Context, d types.Dynamic, diags *diag.Diagnostics) perf.Parallelism {
	var pin perf.Parallelism
	readObject(ctx, parallelismKeys(), d, path.Root("parallelism"), &pin, diags)
	return pin
}

// parallelismValue is the layout an estimate ran: training reports its
// degrees as they are (expert 1 = none); serving reports a replica of
// data-parallel attention with expert parallelism as tensor 1 and its
// width as expert, and its replicas (decode workers) as data. A degree the
// configuration pinned is reported as written (an expert-parallel replica
// pinned as tensor = expert keeps its tensor).
func parallelismValue(est perf.Estimate, pin perf.Parallelism) types.Dynamic {
	got := perf.Parallelism{Tensor: est.TensorParallel, Pipeline: est.PipelineParallel, Expert: max(1, est.ExpertParallel),
		Context: max(1, est.ContextParallel), Data: est.DataParallel}
	if est.Serving != nil && est.Serving.ExpertParallel > 0 {
		got.Tensor = 1
	}
	value := func(pinned, chosen int) attr.Value {
		if pinned > 0 {
			return types.NumberValue(big.NewFloat(float64(pinned)))
		}
		return types.NumberValue(big.NewFloat(float64(chosen)))
	}
	return types.DynamicValue(types.ObjectValueMust(parallelismAttrTypes, map[string]attr.Value{
		"tensor": value(pin.Tensor, got.Tensor), "pipeline": value(pin.Pipeline, got.Pipeline), "expert": value(pin.Expert, got.Expert),
		"context": value(pin.Context, got.Context), "data": value(pin.Data, got.Data),
	}))
}

// servingLayoutSchema is gpu_estimate's serving_layout attribute.
func servingLayoutSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Computed: true,
		MarkdownDescription: "Inference: how the GPUs serve. `mode` is `aggregated` (every replica prefills prompts and " +
			"decodes) or `disaggregated` (prefill workers hand each prompt's KV cache to decode workers); the model " +
			"estimates both and keeps the one that sustains more within the latency limits. Null for training and " +
			"fine-tuning and when the workload does not fit.",
		Attributes: map[string]schema.Attribute{
			"mode": schema.StringAttribute{Computed: true, MarkdownDescription: "`aggregated` or `disaggregated`."},
			"prefill_gpus": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "GPUs of the prefill workers (`0` when aggregated)."},
			"decode_gpus": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "GPUs of the decode workers (`0` when aggregated)."},
			"prefill_workers": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Prefill workers (`0` when aggregated)."},
			"decode_workers": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Decode workers, or the replicas when aggregated."},
			"expert_parallel": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Mixture of experts: GPUs a replica (decode worker) spreads its routed experts over, " +
					"with data-parallel attention and an all-to-all per MoE layer over NVLink (or the scale-out network " +
					"beyond the NVLink domain); `0` when every weight is tensor-parallel."},
		}}
}

// throughputCurveSchema is gpu_estimate's throughput_curve attribute.
func throughputCurveSchema() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Computed: true,
		MarkdownDescription: "Inference: what these GPUs sustain at several interactivity levels, so a module can plot " +
			"the trade-off or pick an operating point: for each level (output tokens/s per user at the 99th percentile, " +
			"i.e. a `max_time_per_output_token_ms` of 1000 / level) the output tokens/s per GPU, keeping the workload's " +
			"other limits. Levels the GPUs cannot reach are left out. Levels: " + curveLevelsDoc() + ". Null for " +
			"training and fine-tuning and when the workload does not fit.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"interactivity": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Output tokens/s per user at the 99th percentile."},
			"tokens_per_second_per_gpu": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Output tokens/s over all `gpu_count` GPUs, per GPU."},
			"tokens_per_second": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Output tokens/s of all the GPUs."},
			"time_per_output_token_ms": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Mean time per output token at the point, milliseconds."},
			"serving_layout": schema.StringAttribute{Computed: true,
				MarkdownDescription: "`aggregated` or `disaggregated` at the point."},
		}}}
}

// defaultNetworkDoc describes the model's default scale-out network.
func defaultNetworkDoc() string {
	if m, err := perf.Builtin(); err == nil {
		gpn := m.Params().Search.DefaultGPUsPerNode
		return fmt.Sprintf("%v Gbit/s per GPU (%v Gbit/s for a node of %d GPUs, an InfiniBand/EFA-class RDMA cluster)",
			m.Params().Network.DefaultGbpsPerGPU, float64(gpn)*m.Params().Network.DefaultGbpsPerGPU, gpn)
	}
	return "a modern RDMA cluster"
}

func (d *estimateDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig reports, at `terraform validate`, the workload's rules
// on the values known now, gpus_per_node > gpu_count and a precision a
// built-in accelerator cannot run. Accelerators only a catalog_file
// defines are checked in Read, at plan time.
func (d *estimateDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	// Each attribute is read on its own: a number the schema rejects must
	// not keep the workload's own rules from being checked.
	gpus, gpusOK := knownInt64(ctx, req.Config, path.Root("gpu_count"))
	perNode, perNodeOK := knownInt64(ctx, req.Config, path.Root("gpus_per_node"))
	if gpusOK && perNodeOK && perNode > gpus {
		resp.Diagnostics.AddAttributeError(path.Root("gpus_per_node"), "Invalid GPUs Per Node",
			fmt.Sprintf("gpus_per_node = %d exceeds gpu_count = %d: a node cannot hold more GPUs than the whole job uses. "+
				"Set gpus_per_node to at most %d, or omit it for min(gpu_count, %s).", perNode, gpus, gpus, defaultGPUsPerNode()))
	}
	var wl types.Dynamic
	var accel types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workload"), &wl)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("accelerator"), &accel)...)
	if resp.Diagnostics.HasError() {
		return
	}
	in, ok := readWorkload(ctx, wl, &resp.Diagnostics)
	if !ok || !in.validate(perf.ValidateOptions{}, &resp.Diagnostics) {
		return
	}
	if accel.IsNull() || accel.IsUnknown() || !in.known("precision") || !in.known("model") {
		return
	}
	cat, err := builtinCatalog()
	if err != nil {
		return // Configure reports a broken built-in catalog.
	}
	model, err := perf.Builtin()
	if err != nil {
		return // Read reports a broken benchmark model.
	}
	if acc, found := cat.Accelerator(accel.ValueString()); found {
		addError(&resp.Diagnostics, model.CheckPrecision(in.workload, acc))
	}
}

// knownInt64 reads a number attribute of cfg; ok is false while it is
// null, unknown or rejected by its limit (the schema reports that).
func knownInt64(ctx context.Context, cfg tfsdk.Config, p path.Path) (int64, bool) {
	var v types.Int64
	if diags := cfg.GetAttribute(ctx, p, &v); diags.HasError() || v.IsNull() || v.IsUnknown() {
		return 0, false
	}
	return v.ValueInt64(), true
}

func (d *estimateDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m estimateModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.data == nil {
		return
	}
	if !d.data.catalogKnown(&resp.Diagnostics) {
		return
	}
	in, ok := readWorkload(ctx, m.Workload, &resp.Diagnostics)
	if !ok {
		return
	}
	model, err := perf.Builtin()
	if err != nil {
		addBug(&resp.Diagnostics, "the embedded benchmark model failed to load", err)
		return
	}
	prep, ok := in.prepare(model, perf.ValidateOptions{}, &resp.Diagnostics)
	if !ok {
		return
	}
	rep, err := prep.Report(d.data.Catalog, perf.HardwareRequest{
		Accelerator: m.Accelerator.ValueString(),
		GPUs:        int(m.GPUCount.ValueInt64()),
		GPUsPerNode: int(m.GPUsPerNode.ValueInt64()),
		NetworkGbps: m.NetworkGbps.ValueFloat64(),
		Layout:      readParallelism(ctx, m.Parallelism, &resp.Diagnostics),
	})
	if err != nil {
		addError(&resp.Diagnostics, err)
		return
	}
	warnAmbiguousAccelerator(&resp.Diagnostics, d.data.Catalog, path.Root("accelerator"), "accelerator", m.Accelerator.ValueString())
	m.setEstimate(prep.Workload(), rep.Estimate, rep.Curve, readParallelism(ctx, m.Parallelism, &resp.Diagnostics), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	for _, w := range rep.Warnings {
		addWarning(&resp.Diagnostics, w.Path, w.Summary, w.Detail)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// setEstimate writes the estimate into the computed attributes: the
// performance outputs are null when the workload does not fit, and the
// kind's other outputs are null.
func (m *estimateModel) setEstimate(w perf.Workload, est perf.Estimate, curve []perf.CurvePoint, pin perf.Parallelism, diags *diag.Diagnostics) {
	m.Fits = types.BoolValue(est.Fits)
	m.ServingLayout = types.ObjectNull(servingLayoutAttrTypes)
	m.ThroughputCurve = types.ListNull(types.ObjectType{AttrTypes: curvePointAttrTypes})
	m.MemoryPerGPUGB = float64Value(diags, "memory_per_gpu_gb", numfmt.Measure(est.MemoryPerGPUGB))
	m.Binding = types.StringValue(est.Binding)
	m.Explanation = types.StringValue(est.Explanation)
	m.TokensPerSecond, m.EstimatedHours, m.MFU = types.Float64Null(), types.Float64Null(), types.Float64Null()
	m.EstimatedSeconds, m.GlobalBatchTokens = types.Float64Null(), types.Int64Null()
	if m.Parallelism.IsUnknown() {
		m.Parallelism = types.DynamicNull()
	}
	m.TTFTMs, m.TPOTMs = types.Float64Null(), types.Float64Null()
	m.Replicas, m.ReplicasNeeded = types.Int64Null(), types.Int64Null()
	if !est.Fits {
		return
	}
	m.TokensPerSecond = float64Value(diags, "tokens_per_second", numfmt.Measure(est.TokensPerSecond))
	m.MFU = float64Value(diags, "mfu", numfmt.Ratio(est.MFU))
	m.Parallelism = parallelismValue(est, pin)
	if w.Kind != perf.KindInference {
		m.EstimatedHours = float64Value(diags, "estimated_hours", numfmt.Hours(est.Hours))
		m.EstimatedSeconds = float64Value(diags, "estimated_seconds", numfmt.Measure(est.Seconds))
		m.GlobalBatchTokens = types.Int64Value(int64(math.Round(est.GlobalBatchTokens)))
		return
	}
	m.TTFTMs = float64Value(diags, "time_to_first_token_ms", numfmt.Measure(est.TTFTMs))
	m.TPOTMs = float64Value(diags, "time_per_output_token_ms", numfmt.Measure(est.TPOTMs))
	m.Replicas = types.Int64Value(int64(est.Replicas))
	if w.TokensPerSecond > 0 && est.ReplicasNeeded > 0 {
		m.ReplicasNeeded = types.Int64Value(int64(est.ReplicasNeeded))
	}
	m.ServingLayout = servingLayoutValue(est)
	m.ThroughputCurve = curveValue(curve, diags)
}

var servingLayoutAttrTypes = map[string]attr.Type{
	"mode": types.StringType, "prefill_gpus": types.Int64Type, "decode_gpus": types.Int64Type,
	"prefill_workers": types.Int64Type, "decode_workers": types.Int64Type, "expert_parallel": types.Int64Type,
}

var curvePointAttrTypes = map[string]attr.Type{
	"interactivity": types.Float64Type, "tokens_per_second_per_gpu": types.Float64Type, "tokens_per_second": types.Float64Type,
	"time_per_output_token_ms": types.Float64Type, "serving_layout": types.StringType,
}

// servingLayoutValue is the serving_layout object of an inference estimate.
func servingLayoutValue(est perf.Estimate) types.Object {
	return servingLayoutObject(&planner.ServingLayout{Mode: est.ServingLayout, PrefillGPUs: est.PrefillGPUs, DecodeGPUs: est.DecodeGPUs,
		PrefillWorkers: est.Serving.PrefillWorkers, DecodeWorkers: est.Replicas, ExpertParallel: est.Serving.ExpertParallel})
}

// servingLayoutObject is a serving_layout object; null when l is nil.
func servingLayoutObject(l *planner.ServingLayout) types.Object {
	if l == nil {
		return types.ObjectNull(servingLayoutAttrTypes)
	}
	return types.ObjectValueMust(servingLayoutAttrTypes, map[string]attr.Value{
		"mode":            types.StringValue(l.Mode),
		"prefill_gpus":    types.Int64Value(int64(l.PrefillGPUs)),
		"decode_gpus":     types.Int64Value(int64(l.DecodeGPUs)),
		"prefill_workers": types.Int64Value(int64(l.PrefillWorkers)),
		"decode_workers":  types.Int64Value(int64(l.DecodeWorkers)),
		"expert_parallel": types.Int64Value(int64(l.ExpertParallel)),
	})
}

// curveValue is the throughput_curve list, rounded like the other outputs.
func curveValue(curve []perf.CurvePoint, diags *diag.Diagnostics) types.List {
	elem := types.ObjectType{AttrTypes: curvePointAttrTypes}
	points := make([]attr.Value, len(curve))
	for i, c := range curve {
		at := func(name string) string { return fmt.Sprintf("throughput_curve[%d].%s", i, name) }
		points[i] = types.ObjectValueMust(curvePointAttrTypes, map[string]attr.Value{
			"interactivity":             float64Value(diags, at("interactivity"), numfmt.Measure(c.Interactivity)),
			"tokens_per_second_per_gpu": float64Value(diags, at("tokens_per_second_per_gpu"), numfmt.Measure(c.TokensPerSecondPerGPU)),
			"tokens_per_second":         float64Value(diags, at("tokens_per_second"), numfmt.Measure(c.TokensPerSecond)),
			"time_per_output_token_ms":  float64Value(diags, at("time_per_output_token_ms"), numfmt.Measure(c.TPOTMs)),
			"serving_layout":            types.StringValue(c.ServingLayout),
		})
	}
	return types.ListValueMust(elem, points)
}

// curveLevelsDoc lists the throughput curve's interactivity levels.
func curveLevelsDoc() string {
	m, err := perf.Builtin()
	if err != nil {
		return "see the model constants"
	}
	levels := m.Params().Inference.ThroughputCurveInteractivity
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = fmt.Sprintf("`%v`", l)
	}
	return strings.Join(parts, ", ") + " tokens/s per user"
}

type estimateModel struct {
	Workload          types.Dynamic `tfsdk:"workload"`
	Accelerator       types.String  `tfsdk:"accelerator"`
	GPUCount          types.Int64   `tfsdk:"gpu_count"`
	GPUsPerNode       types.Int64   `tfsdk:"gpus_per_node"`
	NetworkGbps       types.Float64 `tfsdk:"network_gbps"`
	Fits              types.Bool    `tfsdk:"fits"`
	MemoryPerGPUGB    types.Float64 `tfsdk:"memory_per_gpu_gb"`
	TokensPerSecond   types.Float64 `tfsdk:"tokens_per_second"`
	EstimatedHours    types.Float64 `tfsdk:"estimated_hours"`
	EstimatedSeconds  types.Float64 `tfsdk:"estimated_seconds"`
	GlobalBatchTokens types.Int64   `tfsdk:"global_batch_tokens"`
	Parallelism       types.Dynamic `tfsdk:"parallelism"`
	MFU               types.Float64 `tfsdk:"mfu"`
	TTFTMs            types.Float64 `tfsdk:"time_to_first_token_ms"`
	TPOTMs            types.Float64 `tfsdk:"time_per_output_token_ms"`
	Replicas          types.Int64   `tfsdk:"replicas"`
	ReplicasNeeded    types.Int64   `tfsdk:"replicas_needed"`
	ServingLayout     types.Object  `tfsdk:"serving_layout"`
	ThroughputCurve   types.List    `tfsdk:"throughput_curve"`
	Binding           types.String  `tfsdk:"binding"`
	Explanation       types.String  `tfsdk:"explanation"`
}
