// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// TestTCOOnlySeparateAccounts: an instance type sold only in GovCloud (or
// China) regions gets no region chosen for it: the error names the regions
// and their partitions.
func TestTCOOnlySeparateAccounts(t *testing.T) {
	regions := map[string]*catalog.Region{"us-gov-west-1": {ID: "us-gov-west-1", Partition: catalog.PartitionGov}}
	lookup := func(id string) *catalog.Region { return regions[id] }
	offers := []*catalog.Offer{{Cloud: "aws", InstanceType: "p5.48xlarge", Region: "us-gov-west-1"}}
	if got := offersIn(offers, catalog.PartitionCommercial, lookup); len(got) != 0 {
		t.Fatalf("a GovCloud offer counted as commercial: %v", got)
	}
	// A region without metadata counts as commercial.
	if got := offersIn([]*catalog.Offer{{Region: "moon-1"}}, catalog.PartitionCommercial, lookup); len(got) != 1 {
		t.Fatalf("a region without metadata is left out: %v", got)
	}
	err := onlySeparateAccounts(offers, lookup)
	want := "aws p5.48xlarge is offered only in regions that need an account of their own: us-gov-west-1 (gov). Set region"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "region") {
		t.Fatalf("error %v, want one on region containing %q", err, want)
	}
}
