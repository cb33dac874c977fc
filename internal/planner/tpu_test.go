// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestTPUMultiHostSlices: a job too large for one TPU host is planned on
// several hosts of a full-host shape joined by ICI (fabric ici), never on
// the sub-host shapes (fabric none), and never on more chips than one pod
// (the accelerator's nvlink_domain_gpus): ICI does not reach beyond it.
func TestTPUMultiHostSlices(t *testing.T) {
	p, _ := builtin(t)
	cat := p.Catalog()
	for _, tc := range []struct {
		accel    string
		w        perf.Workload
		maxNodes int
	}{
		// 70B pre-training needs ~1.1 TB of model state: many v5p hosts (95 GB per chip).
		{"TPU-V5P", perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 200}, 64},
		// v5e has 16 GB per chip: a 13B model's 210 GB of state needs several 8-chip hosts.
		{"TPU-V5E", perf.Workload{Kind: "training", ModelParametersB: 13, TrainingTokensB: 50}, 128},
	} {
		t.Run(tc.accel, func(t *testing.T) {
			acc, _ := cat.Accelerator(tc.accel)
			req := request(t, tc.w, planner.Constraints{Accelerators: []string{tc.accel}, MaxNodes: tc.maxNodes, SoftwareStacks: []string{"xla"}}, planner.ObjectiveTime)
			req.DistinctBy = planner.DistinctDeployment
			req.Top = planner.MaxTop
			res, err := p.Recommend(req)
			if err != nil {
				t.Fatal(err)
			}
			multi := 0
			for _, c := range res.Candidates {
				o, ok := cat.Offer(c.Cloud, c.InstanceType, c.Region)
				if !ok {
					t.Fatalf("candidate %s/%s/%s is not an offer", c.Cloud, c.InstanceType, c.Region)
				}
				if c.Nodes > 1 {
					multi++
					if o.Fabric != catalog.FabricICI {
						t.Errorf("%s × %d nodes: fabric %q, want ici", c.InstanceType, c.Nodes, o.Fabric)
					}
				}
				if c.TotalGPUs > acc.NVLinkDomainGPUs {
					t.Errorf("%s × %d nodes = %d chips, beyond the %d-chip pod", c.InstanceType, c.Nodes, c.TotalGPUs, acc.NVLinkDomainGPUs)
				}
				if !(c.EstimatedHours > 0) {
					t.Errorf("%s × %d nodes: %v hours", c.InstanceType, c.Nodes, c.EstimatedHours)
				}
			}
			if multi == 0 {
				t.Fatalf("no multi-host %s candidate among %d", tc.accel, len(res.Candidates))
			}
		})
	}
}

// TestTPUBeyondPodRejected: more v5e chips than one 256-chip pod holds is
// refused as multi_node_without_fabric, not planned over ICI.
func TestTPUBeyondPodRejected(t *testing.T) {
	p, _ := builtin(t)
	// A 1T-parameter model's training state (~16 TB) does not fit 256 v5e
	// chips (4 TB): every full-host v5e offer needs more than the pod.
	req := request(t, perf.Workload{Kind: "training", ModelParametersB: 1000, TrainingTokensB: 10},
		planner.Constraints{Accelerators: []string{"TPU-V5E"}, MaxNodes: 1000, SoftwareStacks: []string{"XLA"}}, planner.ObjectiveCost)
	_, err := p.Recommend(req)
	nc, ok := err.(*planner.NoCandidateError)
	if !ok {
		t.Fatalf("err = %v, want a NoCandidateError", err)
	}
	found := false
	for _, r := range nc.Rejected {
		if r.Reason == planner.ReasonNoFabric && r.Count > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("rejected = %+v, want multi_node_without_fabric", nc.Rejected)
	}
}
