// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package textable_test

import (
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/textable"
)

func TestTable(t *testing.T) {
	tests := []struct {
		name string
		rows [][]string
		want string
	}{
		{
			name: "widths in runes, numbers right-aligned, trailing spaces trimmed",
			rows: [][]string{{"✔", "gcp", "a3-highgpu-8g × 2", "1,234.50"}, {"", "aws", "p5.48xlarge × 1", "98.00"}},
			want: "   CLOUD  INSTANCE × NODES   COST USD\n" +
				"-------------------------------------\n" +
				"✔  gcp    a3-highgpu-8g × 2  1,234.50\n" +
				"   aws    p5.48xlarge × 1       98.00\n",
		},
		{
			name: "no rows: header and rule",
			want: "  CLOUD  INSTANCE × NODES  COST USD\n" +
				"-----------------------------------\n",
		},
		{
			name: "short rows are padded, long rows cut",
			rows: [][]string{{"", "oci"}, {"", "x", "y", "1", "extra"}},
			want: "  CLOUD  INSTANCE × NODES  COST USD\n" +
				"-----------------------------------\n" +
				"  oci\n" +
				"  x      y                        1\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := textable.New(
				textable.Column{},
				textable.Column{Header: "CLOUD"},
				textable.Column{Header: "INSTANCE × NODES"},
				textable.Column{Header: "COST USD", Align: textable.Right},
			)
			for _, r := range tt.rows {
				tb.Row(r...)
			}
			if got := tb.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if tb.Len() != len(tt.rows) {
				t.Errorf("Len = %d, want %d", tb.Len(), len(tt.rows))
			}
		})
	}
}
