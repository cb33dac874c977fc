// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// spotRiskNodes bounds the node counts whose spot risk factor a rate
// holds precomputed (a planner's default max_nodes and well beyond);
// larger jobs compute it per bill.
const spotRiskNodes = 512

// spotRisks is SpotRiskFactor of one cloud for 0 … spotRiskNodes nodes,
// each value computed by SpotRiskFactor itself (the same bits), so billing
// a spot job costs a lookup instead of two exponentials: the planner bills
// thousands of spot candidates per recommendation.
type spotRisks [spotRiskNodes + 1]float64

// spotKey is what a table depends on: the cloud and every constant of
// SpotRiskFactor, so a model or cloud changed later gets a new table.
type spotKey struct {
	cl                                    *catalog.Cloud
	perDay, maxRuntime, tau, restart, min float64
}

// spotCache holds the tables of a model, shared by its rates.
type spotCache struct {
	mu     sync.Mutex
	tables map[spotKey]*spotRisks
}

// spotRisks returns the cloud's table, built at its first use; nil for a
// model built without a cache or a nil cloud.
func (m *Model) spotRisks(cl *catalog.Cloud) *spotRisks {
	if m.spot == nil || cl == nil {
		return nil
	}
	k := spotKey{cl: cl, perDay: cl.Spot.InterruptionsPerDay, maxRuntime: cl.Spot.MaxRuntimeHours,
		tau: m.CheckpointIntervalHours, restart: m.RestartHours, min: m.MinCheckpointCompletion}
	m.spot.mu.Lock()
	defer m.spot.mu.Unlock()
	t, ok := m.spot.tables[k]
	if !ok {
		t = new(spotRisks)
		for n := range t {
			t[n] = m.SpotRiskFactor(cl, n)
		}
		m.spot.tables[k] = t
	}
	return t
}

// spotRisk is SpotRiskFactor of the rate's cloud for a job on n nodes.
func (r *Rate) spotRisk(n int) float64 {
	if r.spot != nil && n >= 0 && n < len(r.spot) {
		return r.spot[n]
	}
	return r.m.SpotRiskFactor(r.cloud, n)
}
