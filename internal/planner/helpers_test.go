// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"sync"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

var (
	once    sync.Once
	thePl   *planner.Planner
	theModl *perf.Model
	setupE  error
)

// builtin returns a planner over the built-in catalog and the perf model.
func builtin(tb testing.TB) (*planner.Planner, *perf.Model) {
	tb.Helper()
	once.Do(func() {
		var cat *catalog.Catalog
		if cat, setupE = catalog.Builtin(); setupE != nil {
			return
		}
		if theModl, setupE = perf.Builtin(); setupE != nil {
			return
		}
		thePl, setupE = planner.New(cat, nil)
	})
	if setupE != nil {
		tb.Fatal(setupE)
	}
	return thePl, theModl
}

// models returns the built-in cost model and planner policy.
func models(tb testing.TB) (*cost.Model, *planner.Policy) {
	tb.Helper()
	cm, err := cost.DefaultModel()
	if err != nil {
		tb.Fatal(err)
	}
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		tb.Fatal(err)
	}
	return cm, pol
}

// request builds a request for a perf workload.
func request(tb testing.TB, w perf.Workload, c planner.Constraints, obj planner.Objective) planner.Request {
	tb.Helper()
	_, m := builtin(tb)
	prep, err := m.Prepare(w, perf.ValidateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return planner.Request{Estimator: prep, Constraints: c, Objective: obj}
}

var (
	llama70BLoRA = perf.Workload{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1, FineTuningMethod: "lora"}
	llama8BPre   = perf.Workload{Kind: "training", ModelParametersB: 8, TrainingTokensB: 100}
	serve8B      = perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 5000}
	serve70B     = perf.Workload{Kind: "inference", ModelParametersB: 70, TokensPerSecond: 20000, MaxTimePerOutputTokenMs: 50}
)

// offerOf is the catalog offer of a candidate: the instance offer, or the
// instance view of a serverless offer (pricing model serverless).
func offerOf(tb testing.TB, cat *catalog.Catalog, c planner.Candidate) *catalog.Offer {
	tb.Helper()
	if c.PricingModel == catalog.Serverless {
		s, ok := cat.ServerlessOffer(c.Cloud, c.InstanceType, c.Region)
		if !ok {
			tb.Fatalf("serverless candidate %s/%s/%q is not a serverless offer", c.Cloud, c.InstanceType, c.Region)
		}
		return s.InstanceView()
	}
	o, ok := cat.Offer(c.Cloud, c.InstanceType, c.Region)
	if !ok {
		tb.Fatalf("candidate %s/%s/%s is not an offer", c.Cloud, c.InstanceType, c.Region)
	}
	return o
}
