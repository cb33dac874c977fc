// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"slices"
	"strings"
	"testing"
)

// TestModelLookupSpellings: the spellings users write for a preset (Hugging
// Face IDs with or without the organisation, -Instruct variants, other
// separators and case) find it; names of other models do not.
func TestModelLookupSpellings(t *testing.T) {
	p := presets(t)
	for _, tc := range []struct{ name, want string }{
		{"llama-3.1-8b", "llama-3.1-8b"},
		{"Llama-3.1-8B-Instruct", "llama-3.1-8b"},
		{"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"},
		{"meta-llama/Meta-Llama-3.1-70B-Instruct", "llama-3.1-70b"},
		{"Meta-Llama-3.1-405B", "llama-3.1-405b"},
		{"Qwen/Qwen3-32B", "qwen3-32b"},
		{"qwen_3_32b", "qwen3-32b"},
		{"Qwen3-235B-A22B-Instruct", "qwen3-235b-a22b"},
		{"deepseek-ai/DeepSeek-R1", "deepseek-r1"},
		{"DeepSeek-R1", "deepseek-r1"},
		{"openai/gpt-oss-120b", "gpt-oss-120b"},
		{"gpt-oss-120b", "gpt-oss-120b"},
		{"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"},
		{"Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"},
		{"moonshotai/Kimi-K2-Instruct", "kimi-k2"},
		{"Llama-2-70b-chat-hf", "llama-2-70b"},
	} {
		m, ok := p.Lookup(tc.name)
		if !ok || m.ID != tc.want {
			got := "nothing"
			if ok {
				got = m.ID
			}
			t.Errorf("Lookup(%q) = %s, want %s", tc.name, got, tc.want)
		}
	}
	for _, name := range []string{"llama3-70b", "llama-3-70b", "deepseek-r2", "llama", ""} {
		if m, ok := p.Lookup(name); ok {
			t.Errorf("Lookup(%q) = %s, want no preset", name, m.ID)
		}
	}
}

// TestClosestModels: an unknown name is matched on its family, version and
// size before spelling: llama3-70b means a Llama 3.x 70B before Llama 2,
// mistral-7b is never mixtral-8x7b.
func TestClosestModels(t *testing.T) {
	p := presets(t)
	for _, tc := range []struct {
		name      string
		wantFirst []string // the first suggestions, in order
		matched   string
		never     string // a preset that must not be suggested
	}{
		{"llama3-70b", []string{"llama-3.1-70b", "llama-3.3-70b"}, "family", ""},
		{"llama-3-70b-instruct", []string{"llama-3.1-70b", "llama-3.3-70b"}, "family", ""},
		{"llama3-8b", []string{"llama-3.1-8b"}, "family", ""},
		{"deepseek-r2", []string{"deepseek-r1"}, "family", ""},
		{"qwen2.5-72b", []string{}, "family", "llama-3.1-70b"},
		{"mistral-nemo", []string{}, "spelling", ""},
	} {
		ids, matched := p.ClosestModels(tc.name, 3)
		if matched != tc.matched || len(ids) == 0 || !slices.Equal(ids[:len(tc.wantFirst)], tc.wantFirst) {
			t.Errorf("ClosestModels(%q) = %q (%s), want %q first (%s)", tc.name, ids, matched, tc.wantFirst, tc.matched)
		}
		if tc.never != "" && slices.Contains(ids, tc.never) {
			t.Errorf("ClosestModels(%q) = %q, must not suggest %s", tc.name, ids, tc.never)
		}
	}
	// mistral-7b: a Mistral preset when the catalog has one, else presets
	// of its size, never Mixtral.
	if m, ok := p.Lookup("mistral-7b"); ok {
		if !strings.HasPrefix(m.ID, "mistral-") {
			t.Errorf("Lookup(mistral-7b) = %s, want a Mistral preset", m.ID)
		}
	} else {
		ids, matched := p.ClosestModels("mistral-7b", 3)
		if matched == "spelling" || slices.Contains(ids, "mixtral-8x7b") {
			t.Errorf("ClosestModels(mistral-7b) = %q (%s), want presets of its family or size, never mixtral-8x7b", ids, matched)
		}
		if msg := p.UnknownModel("mistral-7b"); matched == "size" && !strings.HasPrefix(msg, `no preset of the "mistral" family; closest in size: "llama-2-7b"`) {
			t.Errorf("UnknownModel(mistral-7b) = %s", msg)
		}
	}
	if msg := p.UnknownModel("llama3-70b"); !strings.HasPrefix(msg, `closest: "llama-3.1-70b", "llama-3.3-70b"`) {
		t.Errorf("UnknownModel(llama3-70b) = %s", msg)
	}
}

// TestEveryPresetHasALicense: the license gpu_models reports is recorded
// for every preset (models.json "license", sourced in SOURCES.md).
func TestEveryPresetHasALicense(t *testing.T) {
	for _, m := range presets(t).All() {
		if m.License == "" || m.License != strings.ToLower(m.License) {
			t.Errorf("%s: license %q, want a lower-case licence name", m.ID, m.License)
		}
	}
}
