// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

var (
	tradeOffType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"factor":                       types.Float64Type,
		"deadline_hours":               types.Float64Type,
		"max_time_to_first_token_ms":   types.Float64Type,
		"max_time_per_output_token_ms": types.Float64Type,
		"cheapest":                     candidateType,
		"reason":                       types.StringType,
	}}
	breakEvenType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"duty_cycle": types.Float64Type,
		"serverless": candidateType,
		"dedicated":  candidateType,
	}}
)

// tradeOffAttributes are the schema of trade_offs and serverless_break_even.
func tradeOffAttributes() map[string]schema.Attribute {
	pol, err := planner.BuiltinPolicy()
	factors := "the policy's factors"
	if err == nil {
		fs := make([]string, len(pol.TradeOffFactors))
		for i, f := range pol.TradeOffFactors {
			fs[i] = "`" + numfmt.Trim(f, 2) + "`"
		}
		factors = strings.Join(fs[:len(fs)-1], ", ") + " and " + fs[len(fs)-1]
	}
	return map[string]schema.Attribute{
		"trade_offs": schema.ListNestedAttribute{Computed: true,
			MarkdownDescription: "What the limit costs, without writing sweeps: the cheapest answer (the `cost` objective, every other " +
				"constraint kept) at the request's own limit and at it scaled by each of " + factors + ", ascending. Training and " +
				"fine-tuning scale `constraints.deadline_hours`; without one, the best candidate's hours (and under the `cost` " +
				"objective only tighter factors: its best is already the cheapest). Inference scales both p99 latency limits " +
				"together (`max_time_to_first_token_ms` and `max_time_per_output_token_ms`, with their defaults); a limit beyond " +
				"the input limits leaves its row out. A job's rows come from the candidates the ranking already priced; each " +
				"serving row at other limits is a search of its own for the cheapest deployment (so a serving recommendation " +
				"takes a few times as long). The summary shows them as a table with each answer's cost against the request's own.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"factor": schema.Float64Attribute{Computed: true,
					MarkdownDescription: "The scale of the request's limit: `0.5` twice as tight, `2` twice as loose, `1` the request's own."},
				"deadline_hours": schema.Float64Attribute{Computed: true,
					MarkdownDescription: "The deadline tried (training, fine-tuning); null for inference and for the request's own row without a deadline."},
				"max_time_to_first_token_ms": schema.Float64Attribute{Computed: true,
					MarkdownDescription: "The p99 time-to-first-token limit tried (inference); null for a job."},
				"max_time_per_output_token_ms": schema.Float64Attribute{Computed: true,
					MarkdownDescription: "The p99 time-per-output-token limit tried (inference); null for a job."},
				"cheapest": schema.SingleNestedAttribute{Computed: true, Attributes: candidateAttributes(),
					MarkdownDescription: "The cheapest candidate under that limit, as in `candidates`; null when none meets it."},
				"reason": schema.StringAttribute{Computed: true,
					MarkdownDescription: "When none meets the limit: the binding constraint's rejection reason (as in `rejected`); null otherwise."},
			}},
		},
		"serverless_break_even": schema.SingleNestedAttribute{Computed: true,
			MarkdownDescription: "Inference: the `duty_cycle` where serverless stops being cheaper than dedicated instances. A " +
				"serverless worker is billed for the time the load is there (with the platform's idle tails and cold starts), an " +
				"instance around the clock, so serverless wins at low duty cycles. Null for a job, or unless the allowed pricing " +
				"models and the feasible candidates include both serverless and an instance pricing model.",
			Attributes: map[string]schema.Attribute{
				"duty_cycle": schema.Float64Attribute{Computed: true,
					MarkdownDescription: "Below this `workload.duty_cycle` (rounded down to 0.001) the cheapest serverless deployment costs less " +
						"than the cheapest dedicated one: `1` when serverless is cheaper even under constant load, `0` when it is never cheaper."},
				"serverless": schema.SingleNestedAttribute{Computed: true, Attributes: candidateAttributes(),
					MarkdownDescription: "The serverless deployment that stays cheaper up to the highest duty cycle (when none is ever " +
						"cheaper, the cheapest one), priced at the workload's `duty_cycle`."},
				"dedicated": schema.SingleNestedAttribute{Computed: true, Attributes: candidateAttributes(),
					MarkdownDescription: "The cheapest deployment on an instance pricing model, the same at any duty cycle."},
			},
		},
	}
}

// relimitFor prepares the workload again under other latency limits, with
// the recommendation's options (the serving trade-offs).
func relimitFor(in workloadInput, model *perf.Model, opts perf.ValidateOptions) planner.Relimit {
	return func(ttftMs, tpotMs float64) (planner.Estimator, error) {
		w := in.workload
		w.MaxTimeToFirstTokenMs, w.MaxTimePerOutputTokenMs = ttftMs, tpotMs
		return model.Prepare(w, opts)
	}
}

// tradeOffValues are the trade_offs and serverless_break_even values.
func tradeOffValues(t *planner.TradeOffs, diags *diag.Diagnostics) (types.List, types.Object) {
	if t == nil {
		return types.ListNull(tradeOffType), types.ObjectNull(breakEvenType.AttrTypes)
	}
	rows := make([]attr.Value, len(t.Rows))
	for i := range t.Rows {
		r := &t.Rows[i]
		at := fmt.Sprintf("trade_offs[%d]", i)
		cheapest, reason := types.ObjectNull(candidateAttrTypes), types.StringNull()
		if r.Best != nil {
			cheapest = candidateValue(r.Best, at+".cheapest", diags)
		} else {
			reason = types.StringValue(r.Reason)
		}
		positive := func(name string, v float64) types.Float64 {
			if v > 0 {
				return float64Value(diags, at+"."+name, numfmt.Measure(v))
			}
			return types.Float64Null()
		}
		rows[i] = types.ObjectValueMust(tradeOffType.AttrTypes, map[string]attr.Value{
			"factor":                       float64Value(diags, at+".factor", r.Factor),
			"deadline_hours":               positive("deadline_hours", r.DeadlineHours),
			"max_time_to_first_token_ms":   positive("max_time_to_first_token_ms", r.MaxTimeToFirstTokenMs),
			"max_time_per_output_token_ms": positive("max_time_per_output_token_ms", r.MaxTimePerOutputTokenMs),
			"cheapest":                     cheapest,
			"reason":                       reason,
		})
	}
	be := types.ObjectNull(breakEvenType.AttrTypes)
	if b := t.BreakEven; b != nil {
		be = types.ObjectValueMust(breakEvenType.AttrTypes, map[string]attr.Value{
			"duty_cycle": float64Value(diags, "serverless_break_even.duty_cycle", b.ShownDutyCycle()),
			"serverless": candidateValue(&b.Serverless, "serverless_break_even.serverless", diags),
			"dedicated":  candidateValue(&b.Dedicated, "serverless_break_even.dedicated", diags),
		})
	}
	return types.ListValueMust(tradeOffType, rows), be
}
