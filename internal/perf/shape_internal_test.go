// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"math"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// TestSparsePrefillAttentionFlops checks the prefill attention FLOPs of a
// sparse-attention MLA model by hand, on GLM-5's published shape (78
// layers, 64 heads, kv_lora_rank 512, rope 64, nope 192, v 256; indexer
// 32 heads of 128, top-2,048).
//
// Within the top-k (1,024 tokens) the prompt runs dense and expanded:
// 78 · 64 · (192 + 64 + 256) = 2,555,904 FLOPs per squared token (half a
// pair's 2·heads·(qk + v): causal), 2,555,904 · 1,024² = 2.680e12; the
// indexer adds 78 · 2 · 32 · 128 = 638,976 per pair over 1,024²/2 pairs,
// 3.350e11: 3.015e12 in all.
//
// Beyond it (8,192 tokens) attention runs absorbed over the selected keys:
// 78 · 2 · 64 · ((512 + 64) + 512) = 10,862,592 FLOPs per pair, over
// 2,048²/2 + 6,144 · 2,048 = 14,680,064 pairs = 1.5946e14, plus the
// indexer's 638,976 · 8,192²/2 = 2.144e13: 1.8090e14 (the expanded
// kernel over 8,192 · 2,048 half-pairs would have been 6.43e13).
func TestSparsePrefillAttentionFlops(t *testing.T) {
	p := &catalog.ModelPreset{Layers: 78, AttentionHeads: 64, Attention: catalog.AttentionMLA,
		MLA:             &catalog.MLA{KVLoRARank: 512, QLoRARank: 2048, QKRopeHeadDim: 64, QKNopeHeadDim: 192, VHeadDim: 256},
		SparseAttention: &catalog.SparseAttention{IndexHeads: 32, IndexHeadDim: 128, IndexTopK: 2048}}
	var s shape
	s.attentionFlops(p, 1)
	s.sparseTopK = p.SparseAttention.IndexTopK
	for _, c := range []struct{ in, want float64 }{{1024, 3.01499e12}, {2048, 1.20603e13}, {8192, 1.80900e14}} {
		if got := s.attnPrefillFlops(c.in); math.Abs(got/c.want-1) > 1e-3 {
			t.Errorf("prompt %v: %.5g FLOPs, want %.5g", c.in, got, c.want)
		}
	}
}
