// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package spec is the versioned, cloud-neutral description of a GPU cluster
// (apiVersion gpuplan.io/v1, kind GPUCluster) and its rendering onto the
// instance types of each cloud in the catalog. It is pure Go: no
// terraform-plugin imports. The JSON Schema of the document is
// docs/cluster-spec.schema.json; the format is described in the guide
// templates/guides/cluster-spec.md.tmpl.
package spec

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// Document identity.
const (
	APIVersion = "gpuplan.io/v1"
	Kind       = "GPUCluster"
)

// Annotations recording where a copy of the document is placed. They are
// the only place a cloud may appear; the spec section never names one.
const (
	AnnotationCloud  = "gpuplan.io/cloud"
	AnnotationRegion = "gpuplan.io/region"
)

// Scale-up (inside a node) interconnect classes, derived from the accelerator.
const (
	ScaleUpNVLink         = "nvlink"          // NVLink / NVSwitch across every GPU of the node
	ScaleUpNVLinkBridge   = "nvlink-bridge"   // NVLink bridges between GPU pairs, PCIe otherwise
	ScaleUpPCIe           = "pcie"            // PCIe only
	ScaleUpInfinityFabric = "infinity-fabric" // AMD Infinity Fabric / xGMI
	ScaleUpICI            = "ici"             // Google TPU inter-chip interconnect
	ScaleUpNeuronLink     = "neuronlink"      // AWS Trainium / Inferentia NeuronLink
	ScaleUpRoCE           = "roce"            // on-chip RoCE ports (Intel Gaudi)
	ScaleUpOther          = "other"
)

// ScaleUpClasses lists every scale-up class, in documentation order.
var ScaleUpClasses = []string{
	ScaleUpNVLink, ScaleUpNVLinkBridge, ScaleUpPCIe, ScaleUpInfinityFabric,
	ScaleUpICI, ScaleUpNeuronLink, ScaleUpRoCE, ScaleUpOther,
}

// Document is one GPUCluster document. Field order is the JSON order.
type Document struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	Spec       Cluster  `json:"spec"`
}

// Metadata names the cluster. Labels are free-form key/value pairs;
// annotations record placement (AnnotationCloud, AnnotationRegion).
type Metadata struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Cluster is the cloud-neutral description of the hardware.
type Cluster struct {
	Accelerator string `json:"accelerator"` // canonical catalog ID, e.g. "H100"
	GPUsPerNode int    `json:"gpusPerNode"`
	Nodes       int    `json:"nodes"`
	// GPUMemoryGB is the memory of one GPU (the accelerator's), in GB.
	// It and Interconnect are derived from the catalog: a rendered document
	// always has them, a parsed one may omit them, and JSON then omits them
	// too, so every parsed document renders to JSON that parses back.
	GPUMemoryGB  float64      `json:"gpuMemoryGB,omitzero"`
	Interconnect Interconnect `json:"interconnect,omitzero"`
	PricingModel string       `json:"pricingModel"`
	Storage      Storage      `json:"storage"`
	// Requirements are what every placement of the cluster must offer,
	// whatever the cloud (omitted when there are none).
	Requirements Requirements `json:"requirements,omitzero"`
}

// Requirements are the cluster's needs of the placement's network: a
// placement, and every equivalent that claims to meet them, has at least
// MinNetworkGbps of scale-out bandwidth per node and, with RDMA, an RDMA
// fabric (EFA, InfiniBand, RoCE).
type Requirements struct {
	MinNetworkGbps float64 `json:"minNetworkGbps,omitzero"`
	RDMA           bool    `json:"rdma,omitzero"`
}

// Met reports whether an offer's network meets the requirements.
func (q Requirements) Met(o *catalog.Offer) bool {
	return o.NetworkGbps >= q.MinNetworkGbps && (!q.RDMA || isRDMA(o.Fabric))
}

// IsZero reports whether there is no requirement.
func (q Requirements) IsZero() bool { return q.MinNetworkGbps == 0 && !q.RDMA }

// String names the requirements: "min_network_gbps = 3,200 and rdma".
func (q Requirements) String() string {
	var parts []string
	if q.MinNetworkGbps > 0 {
		parts = append(parts, "min_network_gbps = "+numfmt.Thousands(q.MinNetworkGbps, 0))
	}
	if q.RDMA {
		parts = append(parts, "rdma = true")
	}
	return strings.Join(parts, " and ")
}

// Interconnect is the neutral class of the node's networks.
type Interconnect struct {
	// ScaleUp is the GPU-to-GPU link inside a node (one of ScaleUpClasses).
	ScaleUp string `json:"scaleUp"`
	// ScaleOut is the node-to-node network: "rdma-<gbps>g" for an RDMA
	// fabric (EFA, InfiniBand, RoCE), "ethernet-<gbps>g" for plain TCP/IP
	// networking; without the "-<gbps>g" suffix when the bandwidth is unknown.
	ScaleOut string `json:"scaleOut"`
}

// Storage is what the cluster keeps, in GB.
type Storage struct {
	BlockGB  int64 `json:"blockGB"`
	ObjectGB int64 `json:"objectGB"`
}

// JSON renders the document as compact JSON with a stable key order (struct
// order for objects, sorted keys for labels and annotations) and no HTML
// escaping, so the same document always renders to the same bytes.
func (d *Document) JSON() (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return "", err
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// Placement returns the cloud and region recorded in the annotations ("" when absent).
func (d *Document) Placement() (cloud, region string) {
	return d.Metadata.Annotations[AnnotationCloud], d.Metadata.Annotations[AnnotationRegion]
}
