// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package catalog holds the built-in multi-cloud GPU catalog: accelerators,
// clouds, regions and priced instance offers. It is pure Go: no
// terraform-plugin imports. Data lives in data/ (embedded) with provenance in
// data/SOURCES.md.
package catalog

import (
	"math"
	"sync"
	"time"
)

// PricingModel is how compute is bought.
type PricingModel string

// The pricing models, in their canonical order.
const (
	OnDemand   PricingModel = "on_demand"
	Spot       PricingModel = "spot"
	Reserved1Y PricingModel = "reserved_1y"
	Reserved3Y PricingModel = "reserved_3y"
)

// CapacityBlock is a reservation of whole instances for a fixed window
// bought ahead (AWS EC2 Capacity Blocks for ML): Offer.CapacityBlockUSD is
// its effective hourly rate. Serverless is per-second billing of GPU
// containers (Catalog.Serverless, priced per GPU-second, not per instance).
const (
	CapacityBlock PricingModel = "capacity_block"
	Serverless    PricingModel = "serverless"
)

// pricingModels is the one list of pricing models, in canonical order.
// Every narrower list is a prefix of it, so a pricing model's Index is the
// same in all of them.
var pricingModels = [...]PricingModel{OnDemand, Spot, Reserved1Y, Reserved3Y, CapacityBlock, Serverless}

// NumPricingModels sizes arrays indexed by PricingModel.Index.
const NumPricingModels = len(pricingModels)

// The pricing-model lists, each a prefix of the canonical order (capped,
// so appending to one copies). Callers must not modify them.
var (
	// AllPricingModels: every pricing model (a recommendation's, a
	// gpu_tco pricing_mix's).
	AllPricingModels = pricingModels[:]
	// InstancePricingModels: the models an instance is priced under per
	// instance-hour (serverless is billed per second of use, not per
	// instance): gpu_tco's offers, hourly_price_usd.
	InstancePricingModels = pricingModelsUpTo(CapacityBlock)
	// PricingModels: the hourly models of an instance that anyone can buy
	// at any time (no booked window): the cluster spec's.
	PricingModels = pricingModelsUpTo(Reserved3Y)
)

// pricingModelsUpTo is the canonical list up to and including last.
func pricingModelsUpTo(last PricingModel) []PricingModel {
	n := last.Index() + 1
	return pricingModels[:n:n]
}

// Index is the position of a pricing model in the canonical order (and
// in every list above that holds it), or -1 for an unknown name.
func (pm PricingModel) Index() int {
	for i, x := range pricingModels {
		if x == pm {
			return i
		}
	}
	return -1
}

// Precisions lists the numeric precisions the provider understands.
var Precisions = []string{"fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8", "int4"}

// Fabric is the scale-out network of a node.
type Fabric string

// Node fabrics.
const (
	FabricEFA        Fabric = "efa"
	FabricInfiniBand Fabric = "infiniband"
	FabricRoCE       Fabric = "roce"
	// FabricICI: Google TPU hosts joined by the chips' own inter-chip
	// interconnect into a multi-host slice (up to the pod,
	// Accelerator.NVLinkDomainGPUs); Offer.NetworkGbps is then the host's
	// ICI bandwidth (chips x per-chip ICI), not a NIC.
	FabricICI  Fabric = "ici"
	FabricNone Fabric = "none"
)

// Fabrics lists every fabric, in documentation order.
var Fabrics = []Fabric{FabricEFA, FabricInfiniBand, FabricRoCE, FabricICI, FabricNone}

// InterconnectKind is the structured class of an accelerator's scale-up
// link: how accelerators inside one domain talk to each other. The closed set
// is InterconnectKinds; Accelerator.Interconnect keeps the vendor's wording.
type InterconnectKind string

// Scale-up interconnect kinds.
const (
	// InterconnectNVLink: NVLink/NVSwitch (or NVLink mesh) joining every GPU
	// of the domain at the accelerator's interconnect_gbps.
	InterconnectNVLink InterconnectKind = "nvlink"
	// InterconnectNVLinkBridge: PCIe cards bridged in pairs by NVLink; a
	// wider group talks over PCIe. The domain is 2.
	InterconnectNVLinkBridge InterconnectKind = "nvlink_bridge"
	// InterconnectPCIe: no accelerator-to-accelerator link; every exchange
	// crosses PCIe (and the host). The domain is 1.
	InterconnectPCIe InterconnectKind = "pcie"
	// InterconnectInfinityFabric: AMD Infinity Fabric (xGMI) between OAMs.
	InterconnectInfinityFabric InterconnectKind = "infinity_fabric"
	// InterconnectICI: Google TPU inter-chip interconnect; it spans hosts up
	// to the pod, so the domain is larger than one VM.
	InterconnectICI InterconnectKind = "ici"
	// InterconnectNeuronLink: AWS Trainium/Inferentia NeuronLink.
	InterconnectNeuronLink InterconnectKind = "neuronlink"
	// InterconnectRoCE: RoCE v2 Ethernet ports on the accelerator die used
	// for scale-up (Intel Gaudi).
	InterconnectRoCE InterconnectKind = "roce"
)

// InterconnectKinds lists every interconnect kind, in documentation order.
var InterconnectKinds = []InterconnectKind{InterconnectNVLink, InterconnectNVLinkBridge, InterconnectPCIe,
	InterconnectInfinityFabric, InterconnectICI, InterconnectNeuronLink, InterconnectRoCE}

// Accelerator is one GPU / accelerator model.
type Accelerator struct {
	ID      string   `json:"id"`      // canonical ID, e.g. "H100"
	Name    string   `json:"name"`    // full vendor name
	Vendor  string   `json:"vendor"`  // NVIDIA, AMD, Google, AWS, Intel
	Family  string   `json:"family"`  // architecture family for the perf model, e.g. "hopper", "ampere", "cdna3", "tpu"
	Aliases []string `json:"aliases"` // lower-case alternative names, e.g. "h100-sxm"

	MemoryGB            float64 `json:"memory_gb"`
	MemoryType          string  `json:"memory_type"`
	MemoryBandwidthTBps float64 `json:"memory_bandwidth_tbps"`
	// PeakTFLOPS maps precision -> dense peak TFLOPS (TOPS for int8/int4).
	// A precision missing from the map is not supported by the hardware.
	PeakTFLOPS       map[string]float64 `json:"peak_tflops"`
	TDPWatts         float64            `json:"tdp_watts"`
	Interconnect     string             `json:"interconnect"`
	InterconnectGBps float64            `json:"interconnect_gbps"` // per-device scale-up bandwidth, GB/s
	// InterconnectKind is the structured class of Interconnect.
	InterconnectKind InterconnectKind `json:"interconnect_kind"`
	// NVLinkDomainGPUs is the number of accelerators in one scale-up domain
	// (NVLink/NVSwitch, ICI, Infinity Fabric, NeuronLink or on-chip RoCE) of
	// the system the clouds rent the part in: 8 for an HGX board or an
	// 8-OAM platform, 72 for an NVL72 rack, the pod for a TPU (256, 8960),
	// 2 for NVLink-bridged PCIe pairs, 1 without a link. Larger than an
	// offer's GPUs when the domain spans VMs (GB200/GB300 NVL72, TPU slices).
	NVLinkDomainGPUs int    `json:"nvlink_domain_gpus"`
	FormFactor       string `json:"form_factor"`
	Confidence       string `json:"confidence"`
	Source           string `json:"source"`
}

// EgressTier is one step of a cloud's internet egress price ladder.
// Tiers apply in order; UpToGB is the cumulative monthly volume where the tier
// ends (0 on the last tier = unlimited).
type EgressTier struct {
	UpToGB   float64 `json:"up_to_gb"`
	USDPerGB float64 `json:"usd_per_gb"`
}

// SpotInfo is what a cloud publishes about spot/preemptible interruptions.
type SpotInfo struct {
	Available bool `json:"available"`
	// InterruptionsPerDay is the expected interruptions per instance-day
	// used by the cost model's risk adjustment.
	InterruptionsPerDay float64 `json:"interruptions_per_day"`
	NoticeSeconds       int     `json:"notice_seconds"`
	MaxRuntimeHours     float64 `json:"max_runtime_hours"` // 0 = none
	Source              string  `json:"source"`
}

// Cloud is one provider with its non-compute list prices.
type Cloud struct {
	ID                         string         `json:"id"`
	Name                       string         `json:"name"`
	PUE                        float64        `json:"pue"`
	PUESource                  string         `json:"pue_source"`
	EgressTiers                []EgressTier   `json:"egress_tiers"`
	InterRegionUSDPerGB        float64        `json:"inter_region_usd_per_gb"`
	BlockStorageUSDPerGBMonth  float64        `json:"block_storage_usd_per_gb_month"`
	ObjectStorageUSDPerGBMonth float64        `json:"object_storage_usd_per_gb_month"`
	PricingModels              []PricingModel `json:"pricing_models"`
	// Published commitment discounts (fraction off on-demand) used to derive
	// reserved prices where no public per-SKU rate exists; 0 = none.
	Reserved1YDiscount float64  `json:"reserved_1y_discount"`
	Reserved3YDiscount float64  `json:"reserved_3y_discount"`
	Spot               SpotInfo `json:"spot"`
	HIPAA              bool     `json:"hipaa"` // signs a BAA covering compute
	Source             string   `json:"source"`
}

// Compliance flags a region can carry.
const (
	ComplianceGDPR        = "gdpr"
	ComplianceUKGDPR      = "uk_gdpr"
	ComplianceSwissFADP   = "swiss_fadp"
	ComplianceMLPS2       = "mlps2"
	ComplianceFedRAMPHigh = "fedramp_high"
	ComplianceHIPAA       = "hipaa"
)

// Partition is the isolated part of a cloud a region belongs to.
type Partition string

// Cloud partitions.
const (
	PartitionCommercial Partition = "commercial"
	PartitionGov        Partition = "gov"   // AWS GovCloud, Azure Government
	PartitionChina      Partition = "china" // AWS China, Azure China (21Vianet)
)

// Partitions lists every partition, in documentation order.
var Partitions = []Partition{PartitionCommercial, PartitionGov, PartitionChina}

// PartitionCompliance is the compliance regime every region of a partition
// carries in its Compliance list: government regions are FedRAMP High,
// mainland-China regions MLPS 2.0. The loader adds a missing one (overlay
// regions) so callers read Region.Compliance and never map partitions.
var PartitionCompliance = map[Partition]string{
	PartitionGov:   ComplianceFedRAMPHigh,
	PartitionChina: ComplianceMLPS2,
}

// Region is one cloud region.
type Region struct {
	Cloud      string    `json:"cloud"`
	ID         string    `json:"id"`
	City       string    `json:"city"`
	Country    string    `json:"country"`   // ISO 3166-1 alpha-2
	Geography  string    `json:"geography"` // us, eu, uk, apac, cn, in, ...
	Partition  Partition `json:"partition"` // commercial, gov, china
	Compliance []string  `json:"compliance"`
	// GridGCO2ePerKWh is the location-based grid intensity; 0 = unknown.
	GridGCO2ePerKWh float64 `json:"grid_gco2e_per_kwh"`
	GridYear        int     `json:"grid_year"`
	PUE             float64 `json:"pue"` // region PUE when published, else 0 (use the cloud's)
	Source          string  `json:"source"`
}

// PriceBasis says how a price was obtained.
type PriceBasis string

// Price bases.
const (
	// PricePublished: the rate the cloud publishes for the offer and
	// pricing model (price page, price API, or a public catalog copying
	// them), as the offer's source shows it.
	PricePublished PriceBasis = "published"
	// PriceDerived: computed from other published prices by a rule the
	// offer's source states (e.g. a reserved price = on-demand x (1 - the
	// cloud's median published commitment discount)).
	PriceDerived PriceBasis = "derived"
)

// PriceBases lists every price basis, in documentation order.
var PriceBases = []PriceBasis{PricePublished, PriceDerived}

// PriceInfo is the basis and the source date of one price.
type PriceInfo struct {
	Basis PriceBasis `json:"basis"`
	// AsOf is the date of the source the price was read from; for a
	// derived price, the oldest date among the prices it is derived from.
	// Zero when not stated (a price from a catalog_file that gives none).
	AsOf time.Time `json:"as_of"`
}

// PriceInfos holds the PriceInfo of each priced instance pricing model of
// an offer; the zero PriceInfo for a model the offer is not sold under.
type PriceInfos struct {
	OnDemand      PriceInfo `json:"on_demand"`
	Spot          PriceInfo `json:"spot"`
	Reserved1Y    PriceInfo `json:"reserved_1y"`
	Reserved3Y    PriceInfo `json:"reserved_3y"`
	CapacityBlock PriceInfo `json:"capacity_block"`
}

// Of returns the PriceInfo of an instance pricing model (nil for another
// model: serverless offers carry their own).
func (p *PriceInfos) Of(pm PricingModel) *PriceInfo {
	switch pm {
	case OnDemand:
		return &p.OnDemand
	case Spot:
		return &p.Spot
	case Reserved1Y:
		return &p.Reserved1Y
	case Reserved3Y:
		return &p.Reserved3Y
	case CapacityBlock:
		return &p.CapacityBlock
	}
	return nil
}

// OfferPricingModels lists the pricing models an instance offer can be
// priced under (Offer.Price): the hourly ones and capacity blocks.
var OfferPricingModels = []PricingModel{OnDemand, Spot, Reserved1Y, Reserved3Y, CapacityBlock}

// Offer is one priced (cloud, instance type, region).
type Offer struct {
	Cloud        string `json:"cloud"`
	Region       string `json:"region"`
	InstanceType string `json:"instance_type"`
	Accelerator  string `json:"accelerator"` // canonical accelerator ID
	// GPUs is the number of whole GPUs; 0 for a fractional offer.
	GPUs int `json:"gpus"`
	// GPUFraction is the share of one GPU a fractional offer gets (Azure
	// NVads A10 v5, NCv6 1/4 and 1/2, AWS g6f), 0 < f < 1, with that share
	// of the GPU's memory in GPUMemoryGB; 0 for whole-GPU offers. The
	// planner estimates it as one device with that share of the
	// accelerator, for inference only.
	GPUFraction float64 `json:"gpu_fraction,omitempty"`
	GPUMemoryGB float64 `json:"gpu_memory_gb"` // total across the node
	VCPUs       int     `json:"vcpus"`
	MemoryGB    float64 `json:"memory_gb"`
	NetworkGbps float64 `json:"network_gbps"` // node scale-out bandwidth
	Fabric      Fabric  `json:"fabric"`

	// Hourly list prices in USD for the whole instance; 0 = not sold.
	// OnDemandUSD is 0 only for an offer the cloud does not sell on demand
	// (AWS p5e: capacity blocks only; GCP a3-highgpu-1g/2g/4g: spot only;
	// GCP a4: commitments only), which has at least one other price.
	OnDemandUSD   float64 `json:"on_demand_usd"`
	SpotUSD       float64 `json:"spot_usd"`
	Reserved1YUSD float64 `json:"reserved_1y_usd"`
	Reserved3YUSD float64 `json:"reserved_3y_usd"`
	// CapacityBlockUSD is the effective hourly rate of a capacity block
	// (pricing model CapacityBlock: instances reserved for a fixed window,
	// paid up front); 0 = none published.
	CapacityBlockUSD float64 `json:"capacity_block_usd,omitempty"`
	// ReservedDerived is true when a reserved price was derived from the
	// cloud's published commitment discount, not a public per-SKU rate
	// (PriceInfos.Reserved1Y/Reserved3Y say which).
	ReservedDerived bool `json:"reserved_derived"`
	// PriceInfos says, per pricing model, whether each price is published
	// or derived and the date of its source (read with PriceInfo).
	PriceInfos PriceInfos `json:"price_infos"`

	// Currency is the native currency of the source ("USD", "CNY"); when it
	// is not USD, Native* hold the source prices and the USD fields the
	// converted ones.
	Currency         string  `json:"currency"`
	NativeOnDemand   float64 `json:"native_on_demand,omitempty"`
	NativeSpot       float64 `json:"native_spot,omitempty"`
	NativeReserved1Y float64 `json:"native_reserved_1y,omitempty"`
	NativeReserved3Y float64 `json:"native_reserved_3y,omitempty"`
	Source           string  `json:"source"`
}

// Price returns the hourly USD list price of the offer under a pricing
// model and whether the offer is sold that way.
func (o *Offer) Price(pm PricingModel) (float64, bool) {
	var p float64
	switch pm {
	case OnDemand:
		p = o.OnDemandUSD
	case Spot:
		p = o.SpotUSD
	case Reserved1Y:
		p = o.Reserved1YUSD
	case Reserved3Y:
		p = o.Reserved3YUSD
	case CapacityBlock:
		p = o.CapacityBlockUSD
	}
	return p, p > 0
}

// PriceInfo returns the hourly USD price of the offer under a pricing model,
// its basis and source date, and whether the offer is sold that way.
func (o *Offer) PriceInfo(pm PricingModel) (usd float64, info PriceInfo, ok bool) {
	usd, ok = o.Price(pm)
	if pi := o.PriceInfos.Of(pm); ok && pi != nil {
		info = *pi
	}
	return usd, info, ok
}

// Fractional reports whether the offer holds a share of one GPU.
func (o *Offer) Fractional() bool { return o.GPUFraction > 0 }

// GPUCount is the GPUs of the offer as a number: GPUs, or GPUFraction for a
// fractional offer.
func (o *Offer) GPUCount() float64 {
	if o.Fractional() {
		return o.GPUFraction
	}
	return float64(o.GPUs)
}

// ServerlessOffer is GPU capacity billed per second of use on a serverless
// platform (pricing model Serverless): Modal, RunPod Serverless, Replicate,
// Google Cloud Run, Beam. A cost model prices hours of actual use from it:
// a worker (GPUs accelerators) is billed USDPerWorkerSecond for every
// billed second, where the billed seconds of one burst of busy seconds are
// BilledSeconds(busy, cold). An AlwaysOn offer is billed every second of the
// period whether busy or not. Fields with 0 are "none" or, for durations the
// platform bills without publishing them, "unknown" (Source says which).
type ServerlessOffer struct {
	Cloud string `json:"cloud"`
	// Region is the region workers run in, with region metadata; "" when the
	// platform places them (no country, grid or compliance is known).
	Region string `json:"region"`
	// Name identifies the offer within the cloud, e.g. "functions-h100".
	Name string `json:"name"`
	// Product is the platform product and tier, e.g. "serverless-flex".
	Product     string  `json:"product"`
	Accelerator string  `json:"accelerator"` // canonical accelerator ID
	GPUs        int     `json:"gpus"`        // GPUs per worker
	GPUMemoryGB float64 `json:"gpu_memory_gb"`
	// USDPerGPUSecond is the GPU rate, per GPU and second.
	USDPerGPUSecond float64 `json:"usd_per_gpu_second"`
	// BillingIncrementSeconds: billed time is rounded up to a multiple of it.
	BillingIncrementSeconds float64 `json:"billing_increment_seconds"`
	// MinBilledSeconds is the least time billed per worker start (0 = none).
	MinBilledSeconds float64 `json:"min_billed_seconds"`
	// IdleBilledSeconds is the idle time billed after each burst before the
	// worker scales to zero (keep-warm / idle timeout, default setting).
	IdleBilledSeconds float64 `json:"idle_billed_seconds"`
	// ColdStartSeconds is the start-up time of a cold worker; billed when
	// ColdStartBilled.
	ColdStartSeconds float64 `json:"cold_start_seconds"`
	ColdStartBilled  bool    `json:"cold_start_billed"`
	// AlwaysOn: the worker never scales to zero and is billed continuously
	// (RunPod active workers).
	AlwaysOn bool `json:"always_on"`
	// Host resources billed on top of the GPU rate (0 when the GPU rate
	// includes them): rates and the minimum a GPU worker must take.
	CPUUSDPerCoreSecond   float64 `json:"cpu_usd_per_core_second"`
	MemoryUSDPerGiBSecond float64 `json:"memory_usd_per_gib_second"`
	MinCPUCores           float64 `json:"min_cpu_cores"`
	MinMemoryGiB          float64 `json:"min_memory_gib"`
	Confidence            string  `json:"confidence"`
	// PriceInfo is the basis and source date of the per-second rates.
	PriceInfo PriceInfo `json:"price_info"`
	Source    string    `json:"source"`
}

// USDPerWorkerSecond is the rate of one worker at its minimum host size:
// GPUs x the GPU rate plus the minimum CPU and memory it is billed for.
func (s *ServerlessOffer) USDPerWorkerSecond() float64 {
	return float64(s.GPUs)*s.USDPerGPUSecond + s.MinCPUCores*s.CPUUSDPerCoreSecond + s.MinMemoryGiB*s.MemoryUSDPerGiBSecond
}

// BilledSeconds is the time billed for one burst of busy seconds of one
// worker: the busy time, the billed idle tail, the cold start when the
// burst starts cold and the platform bills it, at least MinBilledSeconds,
// rounded up to the billing increment. (AlwaysOn offers bill the whole
// period instead.)
func (s *ServerlessOffer) BilledSeconds(busy float64, cold bool) float64 {
	t := busy + s.IdleBilledSeconds
	if cold && s.ColdStartBilled {
		t += s.ColdStartSeconds
	}
	t = max(t, s.MinBilledSeconds)
	if s.BillingIncrementSeconds > 0 {
		t = math.Ceil(t/s.BillingIncrementSeconds-billingRoundingSlack) * s.BillingIncrementSeconds
	}
	return t
}

// InstanceView is the serverless offer as an instance shape, for code that
// reads instances: its cloud and region, its name as the instance type,
// its accelerator and the GPUs and GPU memory of one worker, fabric none
// (workers are independent). It has no price under any instance pricing
// model; the serverless rate is the offer's.
func (s *ServerlessOffer) InstanceView() *Offer {
	return &Offer{Cloud: s.Cloud, Region: s.Region, InstanceType: s.Name, Accelerator: s.Accelerator, GPUs: s.GPUs,
		GPUMemoryGB: s.GPUMemoryGB, Fabric: FabricNone, Currency: "USD", Source: s.Source}
}

// billingRoundingSlack keeps a duration that is a whole number of
// increments up to float error (0.30000000000000004 / 0.1) from being
// rounded up one more increment.
const billingRoundingSlack = 1e-9

// Catalog is a loaded, validated and indexed catalog. It is immutable after
// load; overlays return a new Catalog.
type Catalog struct {
	Date         time.Time // catalog_date: the snapshot date
	Accelerators []*Accelerator
	Clouds       []*Cloud
	Regions      []*Region
	Offers       []*Offer
	// Serverless are the per-second GPU offers (pricing model Serverless),
	// kept apart from Offers: they are not instances.
	Serverless []*ServerlessOffer
	// ExchangeRates are the dated conversions used for non-USD sources.
	ExchangeRates []ExchangeRate

	accelByKey map[string]*Accelerator // lower-case ID and aliases
	cloudByID  map[string]*Cloud
	regionByID map[string]*Region   // "cloud/region"
	offerByKey map[offerID]*Offer   // cloud, instance type, region
	offersByIT map[offerID][]*Offer // cloud, instance type (region ""); built at first use
	byITOnce   sync.Once
	serverless map[string]*ServerlessOffer // "cloud/name/region"
}
