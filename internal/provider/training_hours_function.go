// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

var _ function.Function = (*trainingHoursFunction)(nil)

// NewTrainingHoursFunction returns the training_hours function.
func NewTrainingHoursFunction() function.Function {
	return &trainingHoursFunction{}
}

type trainingHoursFunction struct{}

func (f *trainingHoursFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "training_hours"
}

func (f *trainingHoursFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	params, tokens, gpus := limitOf(catalog.LimitModelParametersB), limitOf(catalog.LimitTrainingTokensB), limitOf(catalog.LimitGPUCount)
	resp.Definition = function.Definition{
		Summary: "Wall-clock hours to pre-train a model on a number of GPUs",
		MarkdownDescription: "Returns the estimated wall-clock hours to pre-train a dense model of `model_parameters_b` billion " +
			"parameters on `training_tokens_b` billion tokens with `gpu_count` accelerators, rounded to 0.01 h. Multiply by " +
			"`gpu_count` for GPU-hours. Example: `provider::gpu::training_hours(70, 2000, \"A100-80GB\", 2048)` (Llama 2 70B " +
			"reported 1.72 million A100 GPU-hours).\n\n" +
			"It is the `gpu_estimate` benchmark model with fixed assumptions: `bf16` mixed-precision training, sequence " +
			"length 4,096, the model's fastest layout that fits (tensor parallel inside a node, pipeline and data parallel across " +
			"nodes, ZeRO-3 sharding), nodes of `min(gpu_count, " + defaultGPUsPerNode() + ")` GPUs, a scale-out network of " + defaultNetworkDoc() +
			", the architecture derived from the parameter count, and the goodput loss of restarts and checkpoints " +
			"of long jobs. For other precisions, fine-tuning, mixture-of-experts models, another node size or network, " +
			"use the `gpu_estimate` data source.\n\n" +
			"Terraform calls provider functions without the provider configuration, so `accelerator` must be in the " +
			"**built-in** catalog (`catalog_file` additions are not visible here). It is an error when the model does not fit " +
			"in the memory of `gpu_count` accelerators; the message says how many would be needed.",
		Parameters: []function.Parameter{
			function.NumberParameter{Name: "model_parameters_b",
				MarkdownDescription: "Total model parameters in billions, for example `70`." + params.Doc(),
				Validators:          []function.NumberParameterValidator{params.Arg("model_parameters_b")}},
			function.NumberParameter{Name: "training_tokens_b",
				MarkdownDescription: "Tokens to train on in billions (epochs × dataset tokens), for example `2000` for 2T tokens." + tokens.Doc(),
				Validators:          []function.NumberParameterValidator{tokens.Arg("training_tokens_b")}},
			function.StringParameter{Name: "accelerator",
				MarkdownDescription: "Accelerator ID or alias from the built-in catalog, case-insensitive, for example `H100` or " +
					"`A100-80GB`. It must support `bf16`."},
			function.NumberParameter{Name: "gpu_count",
				MarkdownDescription: "Total number of accelerators, for example `2048`." + gpus.Doc(),
				Validators:          []function.NumberParameterValidator{gpus.Arg("gpu_count")}},
		},
		Return: function.Float64Return{},
	}
}

func (f *trainingHoursFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	// The numbers are within their limits: the parameters' validators
	// checked them.
	var paramsArg, tokensArg, gpusArg types.Number
	var accel string
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &paramsArg, &tokensArg, &accel, &gpusArg))
	if resp.Error != nil {
		return
	}
	params, tokens, gpus := numberArg(paramsArg), numberArg(tokensArg), int64(numberArg(gpusArg))
	cat, err := builtinCatalog()
	if err != nil {
		resp.Error = funcError(fmt.Errorf("the built-in catalog failed to load: %w", err), nil)
		return
	}
	acc, ok := cat.Accelerator(accel)
	if !ok {
		resp.Error = function.NewArgumentFuncError(2, "Unknown Accelerator: "+cat.UnknownAccelerator("accelerator", accel))
		return
	}
	if acc.PeakTFLOPS[perf.DefaultPrecision] <= 0 {
		resp.Error = function.NewArgumentFuncError(2, fmt.Sprintf("Precision Not Supported By Accelerator: training_hours assumes "+
			"bf16 training, which %s cannot run (it supports: %s). Use the gpu_estimate data source with workload.precision "+
			"set to one of those, or an accelerator with bf16", acc.ID, catalog.QuoteList(perf.SupportedPrecisions(acc))))
		return
	}
	model, err := perf.Builtin()
	if err != nil {
		resp.Error = funcError(fmt.Errorf("the embedded benchmark model failed to load: %w", err), nil)
		return
	}
	prep, err := model.Prepare(perf.Workload{Kind: perf.KindTraining, ModelParametersB: params, TrainingTokensB: tokens}, perf.ValidateOptions{})
	if err != nil {
		resp.Error = funcError(err, nil)
		return
	}
	search := model.Params().Search
	gpn := min(int(gpus), search.DefaultGPUsPerNode)
	est, err := prep.Estimate(perf.Hardware{Accelerator: acc, GPUs: int(gpus), GPUsPerNode: gpn})
	if err != nil {
		resp.Error = funcError(err, nil)
		return
	}
	if !est.Fits {
		need := fmt.Sprintf("more than %s nodes of %d", numfmt.Int(float64(search.MaxNodes)), search.DefaultGPUsPerNode)
		if n := prep.MinGPUsToFit(acc, search.DefaultGPUsPerNode); n > 0 {
			need = fmt.Sprintf("at least %d× %s", n, acc.ID)
		}
		resp.Error = function.NewArgumentFuncError(3, fmt.Sprintf("Model Does Not Fit: training a %vB-parameter model in bf16 "+
			"needs %.2f GB per GPU on gpu_count = %d %s (%.2f GB usable, %.2f GB short); it needs %s",
			params, est.MemoryPerGPUGB, gpus, acc.ID, est.UsableMemoryPerGPUGB, est.MemoryShortfallGB, need))
		return
	}
	hours, ferr := funcFloat64("the training hours", numfmt.Hours(est.Hours))
	if ferr != nil {
		resp.Error = ferr
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, hours))
}
