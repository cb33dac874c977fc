// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

var _ function.Function = (*instanceTypeFunction)(nil)

// NewInstanceTypeFunction returns the instance_type function.
func NewInstanceTypeFunction() function.Function {
	return &instanceTypeFunction{}
}

type instanceTypeFunction struct{}

func (f *instanceTypeFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "instance_type"
}

func (f *instanceTypeFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	perNode := gpusPerNodeLimit()
	resp.Definition = function.Definition{
		Summary: "The instance type a cloud sells for an accelerator and a number of GPUs per node",
		MarkdownDescription: "Returns the instance type `cloud` sells for `accelerator` with exactly `gpus_per_node` accelerators, from the provider's " +
			"built-in catalog (functions receive no provider configuration, so `catalog_file` does not apply). When the cloud sells several, " +
			"the one with the lowest on-demand price in any region wins, ties by name: the same choice `gpu_cluster_spec` makes for a single node with " +
			"`pricing_model = \"on_demand\"` without a region. Nothing is substituted: an accelerator the cloud lacks is an error naming the " +
			"clouds that have it, and a GPU count it does not sell is an error naming the sizes it does. Requires Terraform 1.8 or later.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "cloud",
				MarkdownDescription: "Catalog cloud ID, for example `\"aws\"`, `\"gcp\"`, `\"azure\"`.",
			},
			function.StringParameter{
				Name:                "accelerator",
				MarkdownDescription: "Accelerator ID or alias, case-insensitive, for example `\"H100\"` or `\"a100-80gb\"`.",
			},
			function.NumberParameter{
				Name:                "gpus_per_node",
				MarkdownDescription: "Accelerators per instance, for example `8`." + perNode.Doc(),
				Validators:          []function.NumberParameterValidator{perNode.Arg("gpus_per_node")},
			},
		},
		Return: function.StringReturn{},
	}
}

// instanceTypeArgs maps the spec's request fields to argument positions.
var instanceTypeArgs = map[string]int64{
	spec.FieldCloud:       0,
	spec.FieldAccelerator: 1,
	spec.FieldGPUsPerNode: 2,
}

func (f *instanceTypeFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var cloud, accelerator string
	var gpusArg types.Number // within its limit: the parameter's validator checked it
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &cloud, &accelerator, &gpusArg))
	if resp.Error != nil {
		return
	}
	gpus := int64(numberArg(gpusArg))
	cat, err := builtinCatalog()
	if err != nil {
		resp.Error = funcError(fmt.Errorf("the built-in catalog failed to load: %w", err), nil)
		return
	}
	it, err := spec.InstanceType(cat, cloud, accelerator, int(gpus))
	if err != nil {
		resp.Error = funcError(err, instanceTypeArgs)
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, it))
}

// gpusPerNodeLimit bounds GPUs per node where a cluster spec is rendered:
// the catalog's limit, narrowed to what the spec document allows.
func gpusPerNodeLimit() inputLimit {
	return limitOf(catalog.LimitGPUsPerInstance).atMost(spec.MaxGPUsPerNode)
}
