// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

var (
	_ resource.ResourceWithConfigure    = (*clusterSpecResource)(nil)
	_ resource.ResourceWithModifyPlan   = (*clusterSpecResource)(nil)
	_ resource.ResourceWithImportState  = (*clusterSpecResource)(nil)
	_ resource.ResourceWithUpgradeState = (*clusterSpecResource)(nil)
)

// NewClusterSpecResource returns the gpu_cluster_spec resource.
func NewClusterSpecResource() resource.Resource {
	return &clusterSpecResource{}
}

// clusterSpecResource is a logical resource: it lives in state and calls no
// cloud. Every computed attribute is filled in ModifyPlan from the inputs
// and the catalog, so plans show real values.
type clusterSpecResource struct {
	data *providerData
}

var (
	equivalentAttrTypes = map[string]attr.Type{
		"instance_type":   types.StringType,
		"region":          types.StringType,
		"hourly_cost_usd": types.Float64Type,
	}
)

func (r *clusterSpecResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster_spec"
}

func (r *clusterSpecResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	perNode := gpusPerNodeLimit()
	nodes := limitOf(catalog.LimitNodeCount).atMost(spec.MaxNodes)
	pricingModels := catalog.PricingModelNames(catalog.PricingModels)
	resp.Schema = schema.Schema{
		Version: clusterSpecSchemaVersion,
		MarkdownDescription: "A portable, cloud-neutral description of a GPU cluster kept in Terraform state, rendered onto one cloud's instance type. " +
			"It calls no cloud API. Every computed attribute is known at plan time, so `terraform plan` shows the instance type and the cost. " +
			"Changing `cloud`, `region`, `nodes` or `pricing_model` is an in-place update. " + clusterSpecChangeDoc + " `spec_json` is the neutral document " +
			"(`apiVersion: gpuplan.io/v1`, `kind: GPUCluster`; see the [cluster spec guide](../guides/cluster-spec.md)), " +
			"and `equivalents` shows the same cluster on every other cloud that sells the hardware. When the chosen cloud lacks the hardware, " +
			"the plan fails naming the clouds (or GPU counts, regions, pricing models) that exist: nothing is ever substituted silently.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Identifier of the cluster spec: the `name`.",
			},
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Name of the cluster, written to `metadata.name` of the spec, for example `\"llm-train\"`. " +
					fmt.Sprintf("1 to %d characters, without control, bidirectional-control or invisible characters, in Unicode NFC.", spec.MaxNameLength),
				Validators: []validator.String{stringRule{"Invalid Cluster Name", spec.NameProblem}},
			},
			"cloud": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Cloud to render the cluster onto, a catalog cloud ID such as `aws`, `gcp` or `azure`. " +
					"Changing it is an in-place update; the plan shows the new instance type and cost.",
			},
			"region": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Region of `cloud`, in the cloud's own codes (for example `us-east-1`, `europe-west4`, `eastus`). " +
					"When unset, the region where the instance is cheapest under `pricing_model` is chosen (ties by region code) " +
					"and recomputed whenever `cloud` or the hardware changes. When set, the instance must be offered there: " +
					"otherwise the error names the regions that have it.",
				Validators: []validator.String{notEmpty{"give a region code of cloud such as \"us-east-1\", or omit region for the cheapest one"}},
			},
			"accelerator": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Accelerator ID or alias, case-insensitive, for example `H100`, `A100-80GB`, `L4`, `MI300X` " +
					"(see the `gpu_accelerators` data source). The spec records the canonical ID.",
			},
			"gpus_per_node": schema.Int64Attribute{
				Required: true,
				MarkdownDescription: "Accelerators per node, for example `8`. It must be a size `cloud` sells for the accelerator: " +
					"otherwise the error names the sizes that exist." + perNode.Doc(),
				CustomType: perNode.Int64(),
			},
			"nodes": schema.Int64Attribute{
				Optional:            true,
				Computed:            true,
				Default:             int64default.StaticInt64(1),
				MarkdownDescription: "Number of nodes. Default `1`." + nodes.Doc(),
				CustomType:          nodes.Int64(),
			},
			"pricing_model": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(string(catalog.OnDemand)),
				MarkdownDescription: "How compute is bought: `on_demand` (default), `spot`, `reserved_1y` or `reserved_3y` " +
					"(the cloud's 1-/3-year commitment, priced per effective hour). The cloud must sell the instance that way: " +
					"otherwise the error names the pricing models available.",
				Validators: []validator.String{oneOf(pricingModels)},
			},
			"storage": storageAttribute(),
			"labels": schema.MapAttribute{
				Optional:    true,
				Computed:    true,
				ElementType: types.StringType,
				Default:     mapdefault.StaticValue(types.MapValueMust(types.StringType, map[string]attr.Value{})),
				MarkdownDescription: fmt.Sprintf("Free-form labels written to `metadata.labels` of the spec, for example `{ team = \"research\" }`. "+
					"At most %d; keys without spaces. Default: none.", spec.MaxLabels),
				Validators: []validator.Map{noNullValues{}},
			},
			"instance_type": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The cloud's instance type for the accelerator and GPUs per node, for example `p5.48xlarge`. " +
					"When the cloud sells several, the cheapest under `pricing_model` in the region (ties by name); for more than one node, " +
					"instance types with an RDMA fabric (EFA, InfiniBand, RoCE) are preferred when the cloud sells any.",
			},
			"hourly_cost_usd": schema.Float64Attribute{
				Computed: true,
				MarkdownDescription: "Hourly compute cost of the whole cluster (`nodes` instances) in USD under `pricing_model`, " +
					"after the provider's `discounts`; rounded to 1/10,000 USD.",
			},
			"monthly_cost_usd": schema.Float64Attribute{
				Computed: true,
				MarkdownDescription: "Monthly cost in USD: `hourly_cost_usd` around the clock for the cost model's " + hoursPerMonthDoc() + " " +
					"plus `storage` at the cloud's list prices, after the provider's `discounts`; rounded to cents.",
			},
			"spec_json": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The neutral cluster spec as compact JSON with a stable key order (`apiVersion: gpuplan.io/v1`, `kind: GPUCluster`): " +
					"accelerator, GPUs per node, nodes, GPU memory, interconnect class, pricing model, storage and labels. The spec section names no cloud; " +
					"`metadata.annotations` record the cloud and region of this placement, so the value can be passed to `terraform import` as is. " +
					"Schema: `docs/cluster-spec.schema.json`.",
			},
			"equivalents": schema.MapNestedAttribute{
				Computed: true,
				MarkdownDescription: "The same cluster on every other cloud that sells the accelerator with this many GPUs per node under `pricing_model`, " +
					"keyed by cloud ID, each in its cheapest region. Limited to the provider-level `clouds` allow-list when it is set; " +
					"prices after the provider's `discounts`. Empty when no other cloud has the hardware.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"instance_type": schema.StringAttribute{Computed: true,
						MarkdownDescription: "That cloud's instance type, for example `Standard_ND96isr_H100_v5`."},
					"region": schema.StringAttribute{Computed: true,
						MarkdownDescription: "That cloud's cheapest region for the instance under `pricing_model`."},
					"hourly_cost_usd": schema.Float64Attribute{Computed: true,
						MarkdownDescription: "Hourly compute cost of the whole cluster there in USD, after `discounts`; rounded to 1/10,000 USD."},
				}},
			},
		},
	}
}

func (r *clusterSpecResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan fills every computed attribute from the inputs, so the plan
// shows them. Unknown inputs make the computed attributes unknown.
func (r *clusterSpecResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var plan, cfg clusterSpecModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The region the user asked for comes from the configuration: the
	// planned value of an Optional+Computed attribute may be the resolved
	// region of the prior state, which must be recomputed when the cloud changes.
	plan.Region = cfg.Region

	if r.data != nil && !r.data.catalogKnown(&resp.Diagnostics, argClouds, argDiscounts) {
		return
	}
	if r.data != nil && !req.State.Raw.IsNull() && !r.data.catalogUnchanged(ctx, req.Private, &resp.Diagnostics) {
		return
	}
	if r.data == nil || !plan.inputsKnown(ctx) {
		plan.setUnknown()
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		return
	}
	sreq, diags := plan.request(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.render(sreq, &plan, &resp.Diagnostics); err != nil {
		addError(&resp.Diagnostics, err)
	}
	warnAmbiguousAccelerator(&resp.Diagnostics, r.data.Catalog, path.Root("accelerator"), "accelerator", plan.Accelerator.ValueString())
	if resp.Diagnostics.HasError() {
		return
	}
	r.warnChange(ctx, req.State, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// render resolves the request and writes every computed attribute of m.
// A request the catalog cannot satisfy returns an *inputerr.Error; a
// non-finite price is an error on diags.
func (r *clusterSpecResource) render(req spec.Request, m *clusterSpecModel, diags *diag.Diagnostics) error {
	model, err := cost.DefaultModel()
	if err != nil {
		return fmt.Errorf("the provider's embedded cost model is invalid; this is a provider bug, please report it: %w", err)
	}
	rend, err := spec.Render(r.data.Catalog, req, spec.Options{
		Discounts:     r.data.Discounts,
		Clouds:        r.data.Clouds,
		HoursPerMonth: model.HoursPerMonth,
	})
	if err != nil {
		return err
	}
	js, err := rend.Document.JSON()
	if err != nil {
		return fmt.Errorf("encoding the spec as JSON failed; this is a provider bug, please report it: %w", err)
	}
	eqs := make(map[string]attr.Value, len(rend.Equivalents))
	for _, e := range rend.Equivalents {
		eqs[e.Cloud] = types.ObjectValueMust(equivalentAttrTypes, map[string]attr.Value{
			"instance_type":   types.StringValue(e.InstanceType),
			"region":          types.StringValue(e.Region),
			"hourly_cost_usd": float64Value(diags, fmt.Sprintf("equivalents[%q].hourly_cost_usd", e.Cloud), numfmt.Price(e.HourlyUSD)),
		})
	}
	m.ID = types.StringValue(req.Name)
	if m.Region.IsNull() || m.Region.IsUnknown() {
		// A region the configuration sets stays as written ("US-EAST-1"
		// matches us-east-1: names match in any case), or Terraform would
		// see a planned value that is not the configured one.
		m.Region = types.StringValue(rend.Placement.Region)
	}
	m.InstanceType = types.StringValue(rend.Placement.InstanceType)
	m.HourlyCostUSD = float64Value(diags, "hourly_cost_usd", numfmt.Price(rend.Placement.HourlyUSD))
	m.MonthlyCostUSD = float64Value(diags, "monthly_cost_usd", numfmt.USD(rend.Placement.MonthlyUSD))
	m.SpecJSON = types.StringValue(js)
	m.Equivalents = types.MapValueMust(types.ObjectType{AttrTypes: equivalentAttrTypes}, eqs)
	r.warnPriceAge(req, rend.Placement, diags)
	return nil
}

// warnPriceAge warns when the price behind hourly_cost_usd is old.
func (r *clusterSpecResource) warnPriceAge(req spec.Request, p spec.Placement, diags *diag.Diagnostics) {
	pm := catalog.PricingModelOf(string(req.PricingModel))
	if pm == "" {
		pm = catalog.OnDemand
	}
	if o, ok := r.data.Catalog.Offer(p.Cloud, p.InstanceType, p.Region); ok {
		_, info, _ := o.PriceInfo(pm)
		r.data.warnPriceAge(diags, fmt.Sprintf("The %s price of %s %s in %s", pm, p.Cloud, p.InstanceType, p.Region),
			fmt.Sprintf("gpu_cluster_spec %q's hourly_cost_usd", req.Name), info)
	}
}

func (r *clusterSpecResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	// Everything was computed in ModifyPlan: the planned values are the state.
	resp.State.Raw = req.Plan.Raw.Copy()
	resp.Diagnostics.Append(forgetCatalog(ctx, resp.Private)...)
}

func (r *clusterSpecResource) Read(ctx context.Context, _ resource.ReadRequest, resp *resource.ReadResponse) {
	// A logical resource: nothing outside Terraform can change it, so the
	// state is kept as it is (the framework copies it to the response).
	// The refresh records the catalog the plan is made with
	// (catalog_change.go).
	if r.data != nil && !r.data.CatalogFileUnknown {
		resp.Diagnostics.Append(r.data.recordCatalog(ctx, resp.Private)...)
	}
}

func (r *clusterSpecResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw.Copy()
	resp.Diagnostics.Append(forgetCatalog(ctx, resp.Private)...)
}

func (r *clusterSpecResource) Delete(_ context.Context, _ resource.DeleteRequest, _ *resource.DeleteResponse) {
	// Nothing to destroy outside Terraform; the framework removes the state.
}

// ImportState accepts the spec JSON, optionally prefixed by the cloud and
// region to place it on: '<spec_json>', '<cloud>:<spec_json>' or
// '<cloud>/<region>:<spec_json>'. Without a prefix the document's
// annotations gpuplan.io/cloud and gpuplan.io/region say where it is placed.
func (r *clusterSpecResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if r.data == nil {
		resp.Diagnostics.AddError("Provider Not Configured", "The gpu provider must be configured before importing a gpu_cluster_spec.")
		return
	}
	if !r.data.catalogKnown(&resp.Diagnostics, argClouds, argDiscounts) {
		return
	}
	cloud, region, js, err := splitImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", err.Error()+"\n\n"+importIDHelp)
		return
	}
	doc, err := spec.Parse([]byte(js))
	if err != nil {
		resp.Diagnostics.AddError("Invalid Cluster Spec", fmt.Sprintf("The spec JSON in the import ID is not a valid %s %s document: %s", spec.APIVersion, spec.Kind, err))
		return
	}
	sreq, err := spec.RequestFromDocument(r.data.Catalog, doc, cloud, region)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Cluster Spec", fmt.Sprintf("The spec JSON in the import ID cannot be placed: %s\n\n%s", err, importIDHelp))
		return
	}
	var m clusterSpecModel
	if err := r.render(sreq, &m, &resp.Diagnostics); err != nil {
		addImportError(&resp.Diagnostics, err, cloud)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Name = types.StringValue(sreq.Name)
	m.Cloud = types.StringValue(sreq.Cloud)
	m.Accelerator = types.StringValue(sreq.Accelerator)
	m.GPUsPerNode = types.Int64Value(int64(sreq.GPUsPerNode))
	m.Nodes = types.Int64Value(int64(sreq.Nodes))
	m.PricingModel = types.StringValue(string(sreq.PricingModel))
	m.Storage = storageValue(sreq.Storage)
	labels := make(map[string]attr.Value, len(sreq.Labels))
	for k, v := range sreq.Labels {
		labels[k] = types.StringValue(v)
	}
	m.Labels = types.MapValueMust(types.StringType, labels)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

const importIDHelp = "The import ID is the spec JSON (as in the spec_json attribute), optionally prefixed by where to place it: " +
	"'<spec_json>' (placed by its metadata.annotations \"gpuplan.io/cloud\" and \"gpuplan.io/region\"), " +
	"'<cloud>:<spec_json>' (cheapest region of that cloud) or '<cloud>/<region>:<spec_json>'."

// splitImportID separates the optional "<cloud>[/<region>]:" prefix from the spec JSON.
func splitImportID(id string) (cloud, region, js string, err error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return "", "", "", errors.New("the import ID is empty")
	}
	if !utf8.ValidString(id) {
		// Terraform's own gRPC client refuses such an ID before the
		// provider sees it; another client might not.
		bad := len(id)
		for i, r := range id {
			if r == utf8.RuneError {
				bad = i
				break
			}
		}
		return "", "", "", fmt.Errorf("the import ID is not valid UTF-8 (an invalid byte at byte %d): give the spec JSON as text", bad)
	}
	if strings.HasPrefix(id, "{") {
		return "", "", id, nil
	}
	prefix, rest, ok := strings.Cut(id, ":")
	if !ok || !strings.HasPrefix(strings.TrimSpace(rest), "{") {
		return "", "", "", fmt.Errorf("the import ID %q is neither spec JSON (starting with '{') nor '<cloud>:<spec_json>'", truncate(id, 60))
	}
	cloud, region, _ = strings.Cut(prefix, "/")
	cloud, region = strings.TrimSpace(cloud), strings.TrimSpace(region)
	if cloud == "" || strings.ContainsAny(cloud, " {}\"") || strings.ContainsAny(region, " {}\"") ||
		(strings.Contains(prefix, "/") && region == "") {
		return "", "", "", fmt.Errorf("the import ID prefix %q is not '<cloud>' or '<cloud>/<region>'", truncate(prefix, 60))
	}
	return cloud, region, strings.TrimSpace(rest), nil
}

// truncate keeps the first n characters of s (not bytes: a character is
// never cut in two).
func truncate(s string, n int) string {
	i := 0
	for at := range s {
		if i == n {
			return s[:at] + "…"
		}
		i++
	}
	return s
}

type clusterSpecModel struct {
	ID             types.String  `tfsdk:"id"`
	Name           types.String  `tfsdk:"name"`
	Cloud          types.String  `tfsdk:"cloud"`
	Region         types.String  `tfsdk:"region"`
	Accelerator    types.String  `tfsdk:"accelerator"`
	GPUsPerNode    types.Int64   `tfsdk:"gpus_per_node"`
	Nodes          types.Int64   `tfsdk:"nodes"`
	PricingModel   types.String  `tfsdk:"pricing_model"`
	Storage        types.Dynamic `tfsdk:"storage"`
	Labels         types.Map     `tfsdk:"labels"`
	InstanceType   types.String  `tfsdk:"instance_type"`
	HourlyCostUSD  types.Float64 `tfsdk:"hourly_cost_usd"`
	MonthlyCostUSD types.Float64 `tfsdk:"monthly_cost_usd"`
	SpecJSON       types.String  `tfsdk:"spec_json"`
	Equivalents    types.Map     `tfsdk:"equivalents"`
}

// inputsKnown reports whether every input is known (null is known).
func (m *clusterSpecModel) inputsKnown(ctx context.Context) bool {
	for _, v := range []attr.Value{m.Name, m.Cloud, m.Region, m.Accelerator, m.GPUsPerNode, m.Nodes, m.PricingModel, m.Storage, m.Labels} {
		if v.IsUnknown() {
			return false
		}
	}
	if st, err := m.Storage.ToTerraformValue(ctx); err != nil || !st.IsFullyKnown() {
		return false
	}
	for _, v := range m.Labels.Elements() {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// setUnknown marks every computed attribute unknown, keeping a region the user set.
func (m *clusterSpecModel) setUnknown() {
	m.ID = types.StringUnknown()
	if m.Region.IsNull() {
		m.Region = types.StringUnknown()
	}
	m.InstanceType = types.StringUnknown()
	m.HourlyCostUSD = types.Float64Unknown()
	m.MonthlyCostUSD = types.Float64Unknown()
	m.SpecJSON = types.StringUnknown()
	m.Equivalents = types.MapUnknown(types.ObjectType{AttrTypes: equivalentAttrTypes})
}

// request converts known inputs to a spec.Request.
func (m *clusterSpecModel) request(ctx context.Context) (spec.Request, diag.Diagnostics) {
	var diags diag.Diagnostics
	req := spec.Request{
		Name:         m.Name.ValueString(),
		Cloud:        m.Cloud.ValueString(),
		Region:       m.Region.ValueString(),
		Accelerator:  m.Accelerator.ValueString(),
		GPUsPerNode:  int(m.GPUsPerNode.ValueInt64()),
		Nodes:        1,
		PricingModel: catalog.PricingModel(m.PricingModel.ValueString()),
	}
	if !m.Nodes.IsNull() {
		req.Nodes = int(m.Nodes.ValueInt64())
	}
	readObject(ctx, clusterStorageKeys(), m.Storage, path.Root("storage"), &req.Storage, &diags)
	if !m.Labels.IsNull() {
		req.Labels = map[string]string{}
		diags.Append(m.Labels.ElementsAs(ctx, &req.Labels, false)...)
	}
	return req, diags
}

// addImportError reports a spec from an import ID that cannot be placed:
// the field is the spec document's (spec.gpusPerNode), except cloud and
// region when the import ID gave them.
func addImportError(diags *diag.Diagnostics, err error, cloud string) {
	errs := inputerr.From(err)
	if len(errs) == 0 {
		addError(diags, err)
		return
	}
	for _, e := range errs {
		field := e.Path.String()
		if f, ok := spec.DocumentField[field]; ok && (cloud == "" || (field != spec.FieldCloud && field != spec.FieldRegion)) {
			field = f
		}
		diags.AddError(e.Summary, fmt.Sprintf("%s: %s", field, e.Detail))
	}
}
