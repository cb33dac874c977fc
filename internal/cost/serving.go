// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"fmt"
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// workloadInference is the workload kind that serves around the clock:
// JobCost bills it on spot without the rework factor.
const workloadInference = "inference"

// SpotServingDownFraction returns the expected fraction of the time one
// spot instance serving around the clock is down: λ × T, the cloud's
// interruptions per hour (SpotInterruptionRate) × ServingReplacementHours,
// the time until a replacement instance serves again (first order: a
// replacement being interrupted again while it starts is neglected).
func (m *Model) SpotServingDownFraction(cl *catalog.Cloud) float64 {
	return m.SpotInterruptionRate(cl) * m.ServingReplacementHours
}

// SpotServingSpares returns the spare serving units a spot serving fleet
// carries so that units serving units (each nodesPerUnit spot instances,
// the fewest that hold one model replica) keep serving through
// interruptions. An interruption does not cause rework in serving; it takes
// the whole unit of the interrupted instance down until a replacement
// serves, so a unit is down a fraction u·λ·T of the time (u = nodesPerUnit,
// λ·T = SpotServingDownFraction). A fleet of U' units then has U'·u·λ·T
// units down on average, and U' is the smallest count with
// U' − U'·u·λ·T ≥ units:
//
//	spares = max(minSpares, ceil(units / (1 − u·λ·T)) − units)
//
// (at least one spare whenever λ > 0). minSpares is the planner's policy
// floor (planner_policy.json spot_serving_min_spare_units). It fails when
// u·λ·T ≥ 1: the units would be down more often than up.
func (m *Model) SpotServingSpares(cl *catalog.Cloud, units, nodesPerUnit, minSpares int) (int, error) {
	if units < 1 || nodesPerUnit < 1 || minSpares < 0 {
		return 0, fmt.Errorf("cost: SpotServingSpares(units %d, nodes per unit %d, min spares %d): want units, nodes per unit ≥ 1 and min spares ≥ 0",
			units, nodesPerUnit, minSpares)
	}
	down := float64(nodesPerUnit) * m.SpotServingDownFraction(cl)
	if bad(down) || down >= 1 {
		return 0, fmt.Errorf("cost: a spot serving unit of %d instances is down a fraction %v of the time: spares cannot cover it", nodesPerUnit, down)
	}
	need := int(math.Ceil(float64(units)/(1-down)-ceilTolerance)) - units
	return max(minSpares, need), nil
}
