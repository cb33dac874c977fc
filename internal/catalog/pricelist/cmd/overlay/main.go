// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Command overlay turns the clouds' price-list files into a catalog overlay
// for the provider's catalog_file:
//
//	go run ./internal/catalog/pricelist/cmd/overlay -aws ec2.json -azure azure.json -gcp gcp.json -out overlay.yaml
//
// (make overlay AWS_PRICE_LIST=… AZURE_RETAIL_PRICES=… GCP_BILLING_SKUS=… OUT=…). Each input is
// optional. Only instance types the built-in catalog knows are written;
// unknown accelerator instance types and left-out rows are listed on
// stderr. The output is written atomically: on any error nothing is
// written. The guide is docs/guides/price-list-overlay.md.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/overlay"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
)

func main() {
	aws := flag.String("aws", "", "AWS Price List EC2 offer file (JSON)")
	azure := flag.String("azure", "", "Azure Retail Prices API response, one page or a JSON array of pages")
	gcp := flag.String("gcp", "", "Google Cloud Billing Catalog Compute Engine SKUs, one page or a JSON array of pages")
	out := flag.String("out", "", "overlay file to write (YAML)")
	flag.Parse()
	if err := run(*aws, *azure, *gcp, *out); err != nil {
		fmt.Fprintln(os.Stderr, "overlay:", err)
		os.Exit(1)
	}
}

func run(aws, azure, gcp, out string) error {
	if ext := strings.ToLower(filepath.Ext(out)); ext != ".yaml" && ext != ".yml" {
		return fmt.Errorf("-out (OUT=) must name a .yaml or .yml file, got %q", out)
	}
	if aws == "" && azure == "" && gcp == "" {
		return fmt.Errorf("give at least one of -aws, -azure, -gcp (AWS_PRICE_LIST=, AZURE_RETAIL_PRICES=, GCP_BILLING_SKUS=)")
	}
	cat, err := catalog.Builtin()
	if err != nil {
		return err
	}
	var results []*pricelist.Result
	for _, in := range []struct {
		path string
		read pricelist.Reader
	}{{aws, pricelist.ReadAWS}, {azure, pricelist.ReadAzure}, {gcp, pricelist.ReadGCP}} {
		if in.path == "" {
			continue
		}
		res, err := pricelist.ReadFile(in.path, in.read, cat)
		if err != nil {
			return err
		}
		for _, u := range res.Unknown {
			fmt.Fprintf(os.Stderr, "%s: not in the catalog, not imported: %s\n", in.path, u)
		}
		for _, n := range res.Notes {
			fmt.Fprintf(os.Stderr, "%s: %s\n", in.path, n)
		}
		results = append(results, res)
	}
	ov, notes := pricelist.BuildOverlay(results, cat)
	for _, n := range notes {
		fmt.Fprintln(os.Stderr, n)
	}
	data, err := ov.YAML()
	if err != nil {
		return err
	}
	// The overlay must load before it is written.
	if _, err := overlay.Apply(cat, out, overlay.Options{Data: data}); err != nil {
		return fmt.Errorf("the overlay does not load (nothing written): %w", err)
	}
	if err := pricelist.WriteFileAtomic(out, data); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %d offers\n", out, len(ov.Offers))
	return nil
}
