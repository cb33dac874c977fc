// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package spec_test

import (
	"testing"
	"testing/fstest"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// hoursPerMonth stands in for internal/cost's figure in these tests.
const hoursPerMonth = 730

// fixture is a small catalog with known answers:
//
//	alpha sells X100 x8 as a1.8x (r-east 10 od / 4 spot, r-west 9 od) and
//	      a2.8x (r-east 9 od), X100 x1 as a1.1x (r-east 1.5);
//	beta  sells X100 x8 as b.8 (b-1 and b-2 at 12 od, 8 reserved_1y);
//	gamma sells only Y10 x1; Z1 is offered nowhere.
func fixture(t *testing.T) *catalog.Catalog {
	t.Helper()
	fsys := fstest.MapFS{
		catalog.FileMeta: {Data: []byte(`{"catalog_date":"2026-01-01","catalog_date_source":"test","exchange_rates":[],"offer_sources":{}}`)},
		catalog.FileAccelerators: {Data: []byte(`{"accelerators":[
{"id":"X100","name":"Test X100","vendor":"T","family":"hopper","aliases":["x100-sxm"],"memory_gb":80,"memory_bandwidth_tbps":3,"peak_tflops":{"bf16":900},"tdp_watts":700,"interconnect":"NVLink 4","interconnect_gbps":900,"interconnect_kind":"nvlink","nvlink_domain_gpus":8},
{"id":"Y10","name":"Test Y10","vendor":"T","family":"ada","aliases":[],"memory_gb":24,"memory_bandwidth_tbps":0.3,"peak_tflops":{"bf16":100},"tdp_watts":70,"interconnect":"PCIe Gen4 x16 (no NVLink)","interconnect_gbps":64,"interconnect_kind":"pcie","nvlink_domain_gpus":1},
{"id":"Z1","name":"Test Z1","vendor":"T","family":"ada","aliases":[],"memory_gb":16,"memory_bandwidth_tbps":0.3,"peak_tflops":{"bf16":50},"tdp_watts":70,"interconnect":"Infinity Fabric","interconnect_gbps":64,"interconnect_kind":"infinity_fabric","nvlink_domain_gpus":8}
]}`)},
		catalog.FileClouds: {Data: []byte(`{"clouds":[
{"id":"alpha","name":"Alpha","pue":1.1,"block_storage_usd_per_gb_month":0.1,"object_storage_usd_per_gb_month":0.02,"pricing_models":["on_demand","spot"]},
{"id":"beta","name":"Beta","pue":1.1,"block_storage_usd_per_gb_month":0.05,"object_storage_usd_per_gb_month":0.01,"pricing_models":["on_demand","reserved_1y"]},
{"id":"gamma","name":"Gamma","pue":1.1,"pricing_models":["on_demand"]}
]}`)},
		catalog.FileRegions: {Data: []byte(regionsCSV)},
		catalog.FileOffers:  {Data: []byte(offersCSV)},
	}
	cat, err := catalog.Load(fsys)
	if err != nil {
		t.Fatalf("fixture catalog: %v", err)
	}
	return cat
}

const regionsCSV = `cloud,region,city,country,geography,partition,compliance,grid_gco2e_per_kwh,grid_year,pue,source
alpha,r-east,East,US,us,commercial,,400,2024,,t
alpha,r-west,West,US,us,commercial,,300,2024,,t
alpha,r-north,North,CA,us,commercial,,100,2024,,t
beta,b-1,One,DE,eu,commercial,gdpr,300,2024,,t
beta,b-2,Two,FR,eu,commercial,gdpr,50,2024,,t
gamma,g-1,G,JP,apac,commercial,,500,2024,,t
`

const offersCSV = `cloud,region,instance_type,accelerator,gpus,gpu_memory_gb,vcpus,memory_gb,network_gbps,fabric,on_demand_usd,spot_usd,reserved_1y_usd,reserved_3y_usd,reserved_derived,currency,native_on_demand,native_spot,native_reserved_1y,native_reserved_3y,source
alpha,r-east,a1.8x,X100,8,640,192,2048,3200,efa,10,4,,,false,USD,,,,,t
alpha,r-west,a1.8x,X100,8,640,192,2048,3200,efa,9,,,,false,USD,,,,,t
alpha,r-east,a2.8x,X100,8,640,192,2048,400,none,9,,,,false,USD,,,,,t
alpha,r-east,a1.1x,X100,1,80,24,256,100,none,1.5,,,,false,USD,,,,,t
beta,b-2,b.8,X100,8,640,96,1900,1600,infiniband,12,,8,,false,USD,,,,,t
beta,b-1,b.8,X100,8,640,96,1900,1600,infiniband,12,,8,,false,USD,,,,,t
gamma,g-1,g.y,Y10,1,24,8,32,0.4,none,1,,,,false,USD,,,,,t
`
