// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

var _ function.Function = (*vramRequiredGBFunction)(nil)

// NewVRAMRequiredGBFunction returns the vram_required_gb function.
func NewVRAMRequiredGBFunction() function.Function {
	return &vramRequiredGBFunction{}
}

type vramRequiredGBFunction struct{}

func (f *vramRequiredGBFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "vram_required_gb"
}

func (f *vramRequiredGBFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	params := limitOf(catalog.LimitModelParametersB)
	resp.Definition = function.Definition{
		Summary: "Accelerator memory a model needs, in GB",
		MarkdownDescription: "Returns the total accelerator memory in GB (decimal) that a workload of `model_parameters_b` billion " +
			"parameters needs, summed over all GPUs, before it is split over them, rounded to 0.01 GB. The benchmark model's " +
			"memory rules (the same as `gpu_estimate`):\n\n" +
			"* `training` (and full fine-tuning): mixed-precision Adam, " + adamBytesDoc() + " per parameter (weights, gradients, fp32 master " +
			"weights and two moments), plus the activations of one " + numfmt.Int(perf.DefaultSequenceLength) + "-token sequence with recomputation;\n" +
			"* `fine_tuning`: LoRA, the default method: frozen weights at `precision` plus the adapters, their gradients and " +
			"optimizer state, plus activations;\n" +
			"* `inference`: weights at `precision` plus the KV cache of one request of " + numfmt.Int(perf.DefaultInputTokens) +
			" prompt and " + numfmt.Int(perf.DefaultOutputTokens) + " generated tokens, " +
			"with the architecture derived from the parameter count.\n\n" +
			"A runtime reserve (CUDA context, allocator fragmentation) is added on top. Divide by a GPU's memory for a lower " +
			"bound on the GPU count; `gpu_estimate` gives the exact fit for a layout, a longer context or batching. " +
			"Example: `provider::gpu::vram_required_gb(70, \"bf16\", \"inference\")`.",
		Parameters: []function.Parameter{
			function.NumberParameter{Name: "model_parameters_b",
				MarkdownDescription: "Total model parameters in billions, for example `70` for a 70B model." + params.Doc(),
				Validators:          []function.NumberParameterValidator{params.Arg("model_parameters_b")}},
			function.StringParameter{Name: "precision",
				MarkdownDescription: "Precision of the weights: " + codeList(catalog.Precisions) + "."},
			function.StringParameter{Name: "kind",
				MarkdownDescription: "Workload kind: " + codeList(perf.Kinds) + "."},
		},
		Return: function.Float64Return{},
	}
}

func (f *vramRequiredGBFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var paramsArg types.Number // within its limit: the parameter's validator checked it
	var precision, kind string
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &paramsArg, &precision, &kind))
	if resp.Error != nil {
		return
	}
	params := numberArg(paramsArg)
	if err := checkOneOfArg(1, "precision", precision, catalog.Precisions); err != nil {
		resp.Error = err
		return
	}
	if err := checkOneOfArg(2, "kind", kind, perf.Kinds); err != nil {
		resp.Error = err
		return
	}
	model, err := perf.Builtin()
	if err != nil {
		resp.Error = funcError(fmt.Errorf("the embedded benchmark model failed to load: %w", err), nil)
		return
	}
	gb, err := model.VRAMRequiredGB(params, precision, kind)
	if err != nil {
		resp.Error = funcError(err, nil)
		return
	}
	gb, ferr := funcFloat64("the memory required", numfmt.Measure(gb))
	if ferr != nil {
		resp.Error = ferr
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, gb))
}

// checkOneOfArg rejects a value outside allowed (case-insensitive).
func checkOneOfArg(arg int64, name, v string, allowed []string) *function.FuncError {
	lv := strings.ToLower(strings.TrimSpace(v))
	for _, a := range allowed {
		if lv == a {
			return nil
		}
	}
	return function.NewArgumentFuncError(arg, fmt.Sprintf("Invalid %s: %s = %q; allowed: %s. Closest: %s",
		name, name, v, catalog.QuoteList(allowed), catalog.QuoteList(catalog.Closest(v, allowed, 1))))
}
