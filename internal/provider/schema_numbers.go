// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// Numbers in schema descriptions (defaults, weights, limits, rules) are
// read from the data when the schema is built: planner_policy.json,
// cost_model.json and perf_model.json, each a small file parsed once (no
// catalog is loaded; the schema is built at every plugin start). Editing
// the data and running `make generate` regenerates correct docs. A data
// file that fails to parse (a broken build) leaves a phrase without the
// number; the provider reports the failure on first use.

// docNum writes a number of the data for a description, in plain
// notation: 730, 0.25, 4,368.
func docNum(v float64) string { return catalog.FormatNumber(v) }

// balancedObjectiveDoc is the balanced objective's formula with the
// policy's weights.
func balancedObjectiveDoc() string {
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		return "a weighted sum of cost, time and CO2e, each over the best candidate's"
	}
	w := pol.BalancedWeights
	return fmt.Sprintf("%s·cost/best cost + %s·time/best time + %s·CO2e/best CO2e", docNum(w.Cost), docNum(w.Time), docNum(w.Carbon))
}

// defaultMaxNodesDoc is the node count bound of training without
// constraints.max_nodes.
func defaultMaxNodesDoc() string { return numfmt.Int(float64(planner.DefaultMaxNodes)) }

// spotServingSparesDoc says how many spare serving units spot serving
// carries.
func spotServingSparesDoc() string {
	pol, perr := planner.BuiltinPolicy()
	cm, cerr := cost.DefaultModel()
	if perr != nil || cerr != nil {
		return "enough that the units expected down at any time are covered"
	}
	return fmt.Sprintf("enough that the units expected down at any time (units × nodes per unit × λ × %s h to replace one) are "+
		"covered, and at least %d", docNum(cm.ServingReplacementHours), pol.SpotServingMinSpareUnits)
}

// capacityBlockDoc describes capacity-block bookings.
func capacityBlockDoc() string {
	cm, err := cost.DefaultModel()
	if err != nil {
		return "instances booked for a window"
	}
	r := cm.CapacityBlock
	return fmt.Sprintf("instances booked for a window: %s to %s, %s to %s, clusters of 1, 2, 4 … %d instances",
		windowUnit(r.IncrementHours), days(r.ShortMaxHours), windowUnit(r.LongIncrementHours), days(r.MaxHours), r.MaxInstances)
}

// windowUnit names a booking increment: "whole days", "whole weeks", or
// "whole 12-hour windows".
func windowUnit(hours float64) string {
	switch hours {
	case 24:
		return "whole days"
	case 24 * 7:
		return "whole weeks"
	}
	return "whole " + docNum(hours) + "-hour windows"
}

// days writes hours as days when they are whole days.
func days(hours float64) string {
	if d := hours / 24; d == float64(int64(d)) {
		return docNum(d) + " days"
	}
	return docNum(hours) + " h"
}

// hoursPerMonthDoc is the cost model's hours per month.
func hoursPerMonthDoc() string {
	cm, err := cost.DefaultModel()
	if err != nil {
		return "hours per month"
	}
	return "hours per month (" + docNum(cm.HoursPerMonth) + ")"
}

// nodePowerDoc is the cost model's node power rule with an 8-GPU example.
func nodePowerDoc() string {
	cm, err := cost.DefaultModel()
	if err != nil {
		return "GPUs × TDP × (the workload's load factor + the host's share)"
	}
	const exampleGPUs, exampleTDPKW = 8, 0.7 // an 8× H100 server, for the example only
	lf := cm.LoadFactor[cm.DefaultWorkload]
	return fmt.Sprintf("GPUs × TDP × (load factor %s for %s + %s for the host: CPUs, memory, NICs, fans), derived from measured "+
		"8-GPU servers (an 8× H100 node: %s kW)", docNum(lf), cm.DefaultWorkload, docNum(cm.HostPowerPerGPUTDP),
		numfmt.Trim(exampleGPUs*exampleTDPKW*(lf+cm.HostPowerPerGPUTDP), 1))
}

// defaultGPUsPerNode is the benchmark model's node size when none is
// given (perf_model.json search.default_gpus_per_node).
func defaultGPUsPerNode() string {
	m, err := perf.Builtin()
	if err != nil {
		return "a node"
	}
	return fmt.Sprint(m.Params().Search.DefaultGPUsPerNode)
}

// adamBytesDoc is the bytes per parameter of mixed-precision Adam training.
func adamBytesDoc() string {
	m, err := perf.Builtin()
	if err != nil {
		return "the benchmark model's bytes"
	}
	return docNum(m.Params().Memory.AdamBytesPerParam) + " bytes"
}
