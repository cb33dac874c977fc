// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package spec

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
)

// Request fields, the root attribute of a rendering error's path (the
// Terraform attribute names of gpu_cluster_spec).
const (
	FieldName         = "name"
	FieldCloud        = "cloud"
	FieldRegion       = "region"
	FieldAccelerator  = "accelerator"
	FieldGPUsPerNode  = "gpus_per_node"
	FieldNodes        = "nodes"
	FieldPricingModel = "pricing_model"
	FieldStorage      = "storage"
	FieldLabels       = "labels"
)

// DocumentField maps a request field to the document field holding it.
var DocumentField = map[string]string{
	FieldName:         "metadata.name",
	FieldCloud:        "metadata.annotations." + AnnotationCloud,
	FieldRegion:       "metadata.annotations." + AnnotationRegion,
	FieldAccelerator:  "spec.accelerator",
	FieldGPUsPerNode:  "spec.gpusPerNode",
	FieldNodes:        "spec.nodes",
	FieldPricingModel: "spec.pricingModel",
	FieldStorage:      "spec.storage",
	FieldLabels:       "metadata.labels",
}

// A request the catalog cannot satisfy exactly is an *inputerr.Error on
// the request field at fault (a Field* constant as the root attribute),
// with a Title-Case summary and a detail that says what is allowed instead.
func reqErr(field, summary, format string, args ...any) *inputerr.Error {
	return inputerr.New(inputerr.Root(field), summary, format, args...)
}

// Request is a cluster to render onto one cloud.
type Request struct {
	Name        string
	Cloud       string
	Region      string // "" = the cheapest region of the cloud
	Accelerator string // canonical ID or alias, any case
	GPUsPerNode int
	Nodes       int
	// PricingModel defaults to on_demand when empty.
	PricingModel catalog.PricingModel
	Storage      Storage
	Labels       map[string]string
}

// Options carry the provider-level settings that shape a rendering.
type Options struct {
	// Discounts maps cloud -> fraction off list price, [0, 1).
	Discounts map[string]float64
	// Clouds is the allow-list for equivalents; nil = every cloud.
	Clouds []string
	// HoursPerMonth converts hourly to monthly cost (internal/cost's model).
	HoursPerMonth float64
}

// Placement is a cluster on one cloud. Money is unrounded USD after the
// provider discount of that cloud.
type Placement struct {
	Cloud        string
	Region       string
	InstanceType string
	Fabric       catalog.Fabric
	NetworkGbps  float64
	// NodeHourlyUSD is one node; HourlyUSD the whole cluster (× nodes).
	NodeHourlyUSD float64
	HourlyUSD     float64
	// MonthlyUSD is HourlyUSD around the clock for a month plus the
	// storage at the cloud's block and object list prices.
	MonthlyUSD float64
}

// Rendering is a request rendered onto its cloud, with the neutral
// document and the same cluster on every other cloud that sells it.
type Rendering struct {
	Document  Document
	Placement Placement
	// Equivalents are the other allowed clouds selling the same accelerator,
	// GPUs per node and pricing model, in cloud ID order.
	Equivalents []Placement
}

// Render resolves a request against the catalog: the cloud's instance
// type for the accelerator and GPUs per node, in the given region or the
// cheapest one, priced under the pricing model. The choice is the lowest
// price, ties by instance type then region; for more than one node,
// instance types with an RDMA fabric (EFA, InfiniBand, RoCE) come first
// when the cloud sells any. It never substitutes hardware: when the cloud
// lacks it the *inputerr.Error names what exists.
func Render(cat *catalog.Catalog, req Request, opts Options) (*Rendering, error) {
	req.PricingModel = catalog.PricingModelOf(string(req.PricingModel))
	if req.PricingModel == "" {
		req.PricingModel = catalog.OnDemand
	}
	if err := checkRequest(&req, opts); err != nil {
		return nil, err
	}
	acc, err := resolveAccelerator(cat, req.Accelerator)
	if err != nil {
		return nil, err
	}
	if err := checkCommon(req.GPUsPerNode, req.PricingModel); err != nil {
		return nil, err
	}
	main, err := place(cat, req.Cloud, req.Region, acc, req.GPUsPerNode, req.Nodes, req.PricingModel, req.Storage, opts)
	if err != nil {
		return nil, err
	}
	r := &Rendering{Placement: main.Placement}
	for _, id := range cat.CloudIDs() {
		if id == main.Cloud || (opts.Clouds != nil && !slices.Contains(opts.Clouds, id)) {
			continue
		}
		eq, err := place(cat, id, "", acc, req.GPUsPerNode, req.Nodes, req.PricingModel, req.Storage, opts)
		if err != nil {
			continue // the cloud does not sell this hardware this way
		}
		r.Equivalents = append(r.Equivalents, eq.Placement)
	}
	r.Document = document(&req, acc, main)
	return r, nil
}

// checkRequest checks the request's name, labels, node count, storage and
// the options.
func checkRequest(req *Request, opts Options) error {
	if fe := checkName(FieldName, req.Name); fe != nil {
		return reqErr(FieldName, "Invalid Cluster Name", "name %s", fe.Msg)
	}
	for _, k := range slices.Sorted(maps.Keys(req.Labels)) {
		if fe := checkLabelKey(FieldLabels, k); fe != nil {
			return reqErr(FieldLabels, "Invalid Label", "%s", fe.Msg)
		}
	}
	if len(req.Labels) > MaxLabels {
		return reqErr(FieldLabels, "Too Many Labels", "at most %d labels are allowed, got %d", MaxLabels, len(req.Labels))
	}
	if req.Nodes < 1 || req.Nodes > MaxNodes {
		return reqErr(FieldNodes, "Invalid Node Count", "nodes must be between 1 and %d, got %d", MaxNodes, req.Nodes)
	}
	if req.Storage.BlockGB < 0 || req.Storage.ObjectGB < 0 || req.Storage.BlockGB > math.MaxInt32 || req.Storage.ObjectGB > math.MaxInt32 {
		return reqErr(FieldStorage, "Invalid Storage", "block_gb and object_gb must be between 0 and %d GB, got %d and %d",
			math.MaxInt32, req.Storage.BlockGB, req.Storage.ObjectGB)
	}
	if !(opts.HoursPerMonth > 0) {
		return fmt.Errorf("spec: Options.HoursPerMonth must be > 0, got %v", opts.HoursPerMonth)
	}
	return nil
}

// document is the neutral spec of a request placed at main.
func document(req *Request, acc *catalog.Accelerator, main *placed) Document {
	var labels map[string]string
	if len(req.Labels) > 0 {
		labels = maps.Clone(req.Labels)
	}
	return Document{
		APIVersion: APIVersion,
		Kind:       Kind,
		Metadata: Metadata{
			Name:   req.Name,
			Labels: labels,
			Annotations: map[string]string{
				AnnotationCloud:  main.Cloud,
				AnnotationRegion: main.Region,
			},
		},
		Spec: Cluster{
			Accelerator: acc.ID,
			GPUsPerNode: req.GPUsPerNode,
			Nodes:       req.Nodes,
			GPUMemoryGB: acc.MemoryGB,
			Interconnect: Interconnect{
				ScaleUp:  ScaleUpClass(acc),
				ScaleOut: ScaleOutClass(main.offer),
			},
			PricingModel: string(req.PricingModel),
			Storage:      req.Storage,
		},
	}
}

// RequestFromDocument turns a parsed document back into a request. cloud
// and region override the document's annotations when not empty. It checks
// the document's derived fields (gpuMemoryGB, interconnect.scaleUp)
// against the catalog's accelerator and returns a *FieldError when they
// disagree; interconnect.scaleOut describes the placement the document
// was rendered for and is derived again by Render.
func RequestFromDocument(cat *catalog.Catalog, d *Document, cloud, region string) (Request, error) {
	annCloud, annRegion := d.Placement()
	if cloud == "" {
		cloud, region = annCloud, annRegion
	}
	if cloud == "" {
		return Request{}, fieldErr("metadata.annotations."+AnnotationCloud,
			"the document does not say which cloud to place it on: add the annotation %q or name the cloud outside the document", AnnotationCloud)
	}
	acc, ok := cat.Accelerator(d.Spec.Accelerator)
	if !ok {
		return Request{}, fieldErr("spec.accelerator", "unknown accelerator %q; closest: %s", d.Spec.Accelerator,
			catalog.QuoteList(catalog.Closest(d.Spec.Accelerator, cat.AcceleratorIDs(), 3)))
	}
	if d.Spec.GPUMemoryGB != 0 && math.Abs(d.Spec.GPUMemoryGB-acc.MemoryGB) > 1e-9 {
		return Request{}, fieldErr("spec.gpuMemoryGB", "%s has %v GB per GPU, the document says %v: fix the accelerator or the memory",
			acc.ID, acc.MemoryGB, d.Spec.GPUMemoryGB)
	}
	if su := d.Spec.Interconnect.ScaleUp; su != "" && su != ScaleUpClass(acc) {
		return Request{}, fieldErr("spec.interconnect.scaleUp", "%s links its GPUs with %q, the document says %q",
			acc.ID, ScaleUpClass(acc), su)
	}
	return Request{
		Name:         d.Metadata.Name,
		Cloud:        cloud,
		Region:       region,
		Accelerator:  acc.ID,
		GPUsPerNode:  d.Spec.GPUsPerNode,
		Nodes:        d.Spec.Nodes,
		PricingModel: catalog.PricingModel(d.Spec.PricingModel),
		Storage:      d.Spec.Storage,
		Labels:       d.Metadata.Labels,
	}, nil
}

// InstanceType is the instance type a cloud sells for an accelerator with
// a number of GPUs per node: the one with the lowest on-demand price in
// any region (instance types without an on-demand price rank last), ties
// by name. It is what Render chooses for on_demand without a region.
func InstanceType(cat *catalog.Catalog, cloud, accelerator string, gpusPerNode int) (string, error) {
	acc, err := resolveAccelerator(cat, accelerator)
	if err != nil {
		return "", err
	}
	cl, err := resolveCloud(cat, cloud)
	if err != nil {
		return "", err
	}
	cloud = cl.ID // names match in any case
	if err := checkCommon(gpusPerNode, catalog.OnDemand); err != nil {
		return "", err
	}
	sized, err := sizedOffers(cat, cloud, acc, gpusPerNode)
	if err != nil {
		return "", err
	}
	best, bestPrice := "", math.Inf(1)
	for _, o := range sized {
		p := math.Inf(1)
		if v, ok := o.Price(catalog.OnDemand); ok {
			p = v
		}
		if best == "" || p < bestPrice || (p == bestPrice && o.InstanceType < best) {
			best, bestPrice = o.InstanceType, p
		}
	}
	return best, nil
}

// CloudsOffering lists the clouds with any offer of the accelerator, sorted.
func CloudsOffering(cat *catalog.Catalog, acc *catalog.Accelerator) []string {
	set := map[string]bool{}
	for _, o := range cat.Offers {
		if o.Accelerator == acc.ID {
			set[o.Cloud] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// scaleUpClasses maps the catalog's structured interconnect kind to the
// neutral scale-up class of the spec.
var scaleUpClasses = map[catalog.InterconnectKind]string{
	catalog.InterconnectNVLink:         ScaleUpNVLink,
	catalog.InterconnectNVLinkBridge:   ScaleUpNVLinkBridge,
	catalog.InterconnectPCIe:           ScaleUpPCIe,
	catalog.InterconnectInfinityFabric: ScaleUpInfinityFabric,
	catalog.InterconnectICI:            ScaleUpICI,
	catalog.InterconnectNeuronLink:     ScaleUpNeuronLink,
	catalog.InterconnectRoCE:           ScaleUpRoCE,
}

// ScaleUpClass is the neutral class of an accelerator's in-node
// interconnect, from its catalog interconnect_kind.
func ScaleUpClass(a *catalog.Accelerator) string {
	if c, ok := scaleUpClasses[a.InterconnectKind]; ok {
		return c
	}
	return ScaleUpOther
}

// ScaleOutClass is the neutral class of an offer's node-to-node network:
// "rdma-<gbps>g" for EFA, InfiniBand and RoCE fabrics, "ethernet-<gbps>g"
// otherwise, without the suffix when the catalog has no bandwidth.
func ScaleOutClass(o *catalog.Offer) string {
	kind := "ethernet"
	if isRDMA(o.Fabric) {
		kind = "rdma"
	}
	if g := int64(math.Round(o.NetworkGbps)); g > 0 {
		return kind + "-" + strconv.FormatInt(g, 10) + "g"
	}
	return kind
}

func isRDMA(f catalog.Fabric) bool {
	return f == catalog.FabricEFA || f == catalog.FabricInfiniBand || f == catalog.FabricRoCE
}

type placed struct {
	Placement
	offer *catalog.Offer
}

func resolveAccelerator(cat *catalog.Catalog, name string) (*catalog.Accelerator, error) {
	acc, ok := cat.Accelerator(name)
	if !ok {
		return nil, reqErr(FieldAccelerator, "Unknown Accelerator", "%s", cat.UnknownAccelerator(FieldAccelerator, name))
	}
	return acc, nil
}

func resolveCloud(cat *catalog.Catalog, cloud string) (*catalog.Cloud, error) {
	cl, ok := cat.Cloud(cloud)
	if !ok {
		return nil, reqErr(FieldCloud, "Unknown Cloud", "%s", cat.UnknownCloud(FieldCloud, cloud))
	}
	return cl, nil
}

func checkCommon(gpus int, pm catalog.PricingModel) error {
	if gpus < 1 || gpus > MaxGPUsPerNode {
		return reqErr(FieldGPUsPerNode, "Invalid GPUs Per Node", "gpus_per_node must be between 1 and %d, got %d", MaxGPUsPerNode, gpus)
	}
	if !slices.Contains(catalog.PricingModels, pm) {
		return reqErr(FieldPricingModel, "Unknown Pricing Model", "%q is not a pricing model; allowed: %s", pm, catalog.QuoteList(catalog.PricingModelNames(catalog.PricingModels)))
	}
	return nil
}

// sizedOffers are the cloud's offers of the accelerator with exactly that
// many GPUs per node, or an *inputerr.Error naming the clouds or sizes that exist.
func sizedOffers(cat *catalog.Catalog, cloud string, acc *catalog.Accelerator, gpus int) ([]*catalog.Offer, error) {
	var ofAcc, sized []*catalog.Offer
	for _, o := range cat.Offers {
		if o.Cloud == cloud && o.Accelerator == acc.ID && !o.Fractional() {
			ofAcc = append(ofAcc, o)
			if o.GPUs == gpus {
				sized = append(sized, o)
			}
		}
	}
	if len(ofAcc) == 0 {
		others := CloudsOffering(cat, acc)
		if len(others) == 0 {
			return nil, reqErr(FieldAccelerator, "Accelerator Not Offered On Cloud",
				"%s is not offered on cloud %q, and no cloud in the catalog offers it.", acc.ID, cloud)
		}
		return nil, reqErr(FieldAccelerator, "Accelerator Not Offered On Cloud",
			"%s is not offered on cloud %q. Clouds that offer it: %s.", acc.ID, cloud, catalog.QuoteList(others))
	}
	if len(sized) == 0 {
		return nil, reqErr(FieldGPUsPerNode, "GPUs Per Node Not Sold",
			"cloud %q does not sell %s with %d GPUs per node. Sizes it sells: %s.", cloud, acc.ID, gpus, sizes(ofAcc))
	}
	return sized, nil
}

// sizes describes the GPU counts of offers: "1 (g5.xlarge, …), 8 (p5.48xlarge)".
func sizes(offers []*catalog.Offer) string {
	byN := map[int]map[string]bool{}
	for _, o := range offers {
		if byN[o.GPUs] == nil {
			byN[o.GPUs] = map[string]bool{}
		}
		byN[o.GPUs][o.InstanceType] = true
	}
	ns := make([]int, 0, len(byN))
	for n := range byN {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	parts := make([]string, len(ns))
	for i, n := range ns {
		its := slices.Sorted(maps.Keys(byN[n]))
		if len(its) > 3 {
			its = append(its[:3], "…")
		}
		parts[i] = fmt.Sprintf("%d (%s)", n, strings.Join(its, ", "))
	}
	return strings.Join(parts, ", ")
}

// place chooses the offer of a cloud for the hardware: in the region asked
// for or the cheapest, an RDMA fabric first for a multi-node cluster, and
// prices the cluster with the provider's discount.
func place(cat *catalog.Catalog, cloud, region string, acc *catalog.Accelerator, gpus, nodes int,
	pm catalog.PricingModel, st Storage, opts Options,
) (*placed, error) {
	cl, err := resolveCloud(cat, cloud)
	if err != nil {
		return nil, err
	}
	// Names match in any case: from here on, the catalog's spelling.
	cloud = cl.ID
	if r, ok := cat.Region(cloud, region); ok && region != "" {
		region = r.ID
	}
	sized, err := sizedOffers(cat, cloud, acc, gpus)
	if err != nil {
		return nil, err
	}
	cands, err := inRegion(cat, sized, cloud, region, acc, gpus)
	if err != nil {
		return nil, err
	}
	best, bestPrice := cheapestOffer(cands, nodes, pm)
	if best == nil {
		return nil, notSold(cands, cloud, region, acc, gpus, pm)
	}
	keep := 1 - opts.Discounts[cl.ID]
	node := bestPrice * keep
	hourly := node * float64(nodes)
	storage := cost.BlockStorageMonthlyUSD(cl, float64(st.BlockGB), opts.Discounts[cl.ID]) +
		cost.ObjectStorageMonthlyUSD(cl, float64(st.ObjectGB), opts.Discounts[cl.ID])
	return &placed{
		Placement: Placement{
			Cloud:         cl.ID,
			Region:        best.Region,
			InstanceType:  best.InstanceType,
			Fabric:        best.Fabric,
			NetworkGbps:   best.NetworkGbps,
			NodeHourlyUSD: node,
			HourlyUSD:     hourly,
			MonthlyUSD:    hourly*opts.HoursPerMonth + storage,
		},
		offer: best,
	}, nil
}

// inRegion keeps the offers in region ("" = every region), or says which
// regions have the hardware.
func inRegion(cat *catalog.Catalog, sized []*catalog.Offer, cloud, region string, acc *catalog.Accelerator, gpus int) ([]*catalog.Offer, error) {
	if region == "" {
		return sized, nil
	}
	if _, ok := cat.Region(cloud, region); !ok && !slices.ContainsFunc(sized, func(o *catalog.Offer) bool { return o.Region == region }) {
		return nil, reqErr(FieldRegion, "Unknown Region", "%q is not a region of cloud %q. Closest: %s. Regions where %s with %d GPUs per node is offered: %s.",
			region, cloud, catalog.QuoteList(catalog.Closest(region, cat.RegionIDs(cloud), 3)), acc.ID, gpus, catalog.QuoteList(regionsOf(sized)))
	}
	var cands []*catalog.Offer
	for _, o := range sized {
		if o.Region == region {
			cands = append(cands, o)
		}
	}
	if len(cands) == 0 {
		return nil, reqErr(FieldRegion, "Hardware Not Offered In Region",
			"cloud %q does not offer %s with %d GPUs per node in %q. Regions that have it: %s.",
			cloud, acc.ID, gpus, region, catalog.QuoteList(regionsOf(sized)))
	}
	return cands, nil
}

// cheapestOffer is the cheapest offer sold under pm (ties: instance type,
// region); a multi-node cluster needs its scale-out network, so instance
// types with an RDMA fabric come first when the cloud sells one.
func cheapestOffer(cands []*catalog.Offer, nodes int, pm catalog.PricingModel) (*catalog.Offer, float64) {
	rank := func(o *catalog.Offer) int {
		if nodes > 1 && !isRDMA(o.Fabric) {
			return 1
		}
		return 0
	}
	var best *catalog.Offer
	var bestPrice float64
	for _, o := range cands {
		p, ok := o.Price(pm)
		if !ok {
			continue
		}
		if best == nil || rank(o) < rank(best) || (rank(o) == rank(best) && (p < bestPrice ||
			(p == bestPrice && (o.InstanceType < best.InstanceType || (o.InstanceType == best.InstanceType && o.Region < best.Region))))) {
			best, bestPrice = o, p
		}
	}
	return best, bestPrice
}

// notSold says which pricing models the hardware is sold under instead.
func notSold(cands []*catalog.Offer, cloud, region string, acc *catalog.Accelerator, gpus int, pm catalog.PricingModel) error {
	var avail []string
	for _, m := range catalog.PricingModels {
		if slices.ContainsFunc(cands, func(o *catalog.Offer) bool { _, ok := o.Price(m); return ok }) {
			avail = append(avail, string(m))
		}
	}
	where := "in any region"
	if region != "" {
		where = "in " + strconv.Quote(region)
	}
	if len(avail) == 0 {
		return reqErr(FieldPricingModel, "Pricing Model Not Sold",
			"cloud %q publishes no price for %s with %d GPUs per node %s.", cloud, acc.ID, gpus, where)
	}
	return reqErr(FieldPricingModel, "Pricing Model Not Sold",
		"cloud %q does not sell %s with %d GPUs per node as %q %s. Pricing models available: %s.",
		cloud, acc.ID, gpus, pm, where, catalog.QuoteList(avail))
}

func regionsOf(offers []*catalog.Offer) []string {
	set := map[string]bool{}
	for _, o := range offers {
		set[o.Region] = true
	}
	return slices.Sorted(maps.Keys(set))
}
