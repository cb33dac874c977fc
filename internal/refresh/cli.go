// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package refresh

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// Command is the subcommand's name: terraform-provider-gpu refresh.
const Command = "refresh"

// maxNotes is how many notes a run prints without --verbose.
const maxNotes = 20

// Main runs the refresh subcommand with its arguments (after "refresh"),
// printing to stderr, and returns the process exit code: 0 done, 1 failed
// (nothing written), 2 bad usage.
func Main(args []string, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("terraform-provider-gpu refresh", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	var clouds, regions string
	var quiet, verbose bool
	fs.StringVar(&o.Out, "out", "", "overlay file to write, .yaml or .yml (use it as the provider's catalog_file)")
	fs.StringVar(&o.Extract, "extract", "", "also write the prices read as a price-list extract, .json, for the built-in catalog's generator (make refresh)")
	fs.StringVar(&clouds, "clouds", "", "comma-separated clouds to read: "+strings.Join(Clouds, ", ")+
		" (default: aws, azure, runpod, and gcp and lambda when their key is given; replaying: the recording's)")
	fs.StringVar(&regions, "aws-regions", "", "comma-separated AWS regions whose EC2 offer file is read (default: every region of the catalog's AWS offers; each file is hundreds of MB to several GB)")
	// Keys default to their environment variables after parsing, never as
	// flag defaults: -help prints defaults.
	fs.StringVar(&o.GCPAPIKey, "gcp-api-key", "", "Google API key for the Cloud Billing Catalog API (default $GCP_API_KEY; the variable keeps it out of the process list)")
	fs.StringVar(&o.RunPodAPIKey, "runpod-api-key", "", "RunPod API key, optional (default $RUNPOD_API_KEY)")
	fs.StringVar(&o.LambdaAPIKey, "lambda-api-key", "", "Lambda Cloud API key (default $LAMBDA_API_KEY)")
	fs.StringVar(&o.Record, "record", "", "save every answer under this directory (with manifest.json), to replay later")
	fs.StringVar(&o.Replay, "replay", "", "read every answer from a directory written by --record, offline")
	fs.BoolVar(&quiet, "quiet", false, "print only errors")
	fs.BoolVar(&verbose, "verbose", false, "print every note (rows left out or changed), not the first "+fmt.Sprint(maxNotes))
	fs.Usage = func() { usage(fs, stderr) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "refresh: unexpected argument %q: every input is a flag\n", fs.Arg(0))
		return 2
	case o.Out == "" && o.Extract == "":
		fmt.Fprintln(stderr, "refresh: --out is required")
		usage(fs, stderr)
		return 2
	}
	o.Clouds, o.AWSRegions = splitList(strings.ToLower(clouds)), splitList(regions)
	for _, k := range []struct {
		dst *string
		env string
	}{{&o.GCPAPIKey, "GCP_API_KEY"}, {&o.RunPodAPIKey, "RUNPOD_API_KEY"}, {&o.LambdaAPIKey, "LAMBDA_API_KEY"}} {
		if *k.dst == "" {
			*k.dst = getenv(k.env)
		}
	}
	if !quiet {
		o.Log = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := Run(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "refresh: %v\nNothing was written.\n", err)
		return 1
	}
	if !quiet {
		report(stderr, sum, verbose)
	}
	return 0
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `Usage: terraform-provider-gpu refresh --out prices.yaml [flags]

Downloads the clouds' public price lists (AWS Price List bulk EC2 offer
files, Azure Retail Prices API, Google Cloud Billing Catalog, RunPod and
Lambda APIs) and writes a catalog overlay for the provider's catalog_file.
Only this command touches the network; Terraform running the provider never
does. On any error (a truncated download, an answer whose format changed)
nothing is written.

Flags:
`)
	fs.PrintDefaults()
}

// report prints what was written and the notes.
func report(w io.Writer, sum *Summary, verbose bool) {
	for _, r := range sum.Results {
		fmt.Fprintf(w, "%s: %s, dated %s: %d prices", r.Cloud, r.File, r.Date, len(r.Prices))
		if len(r.Unknown) > 0 {
			fmt.Fprintf(w, "; not in the catalog: %s", strings.Join(r.Unknown, ", "))
		}
		fmt.Fprintln(w)
	}
	for i, n := range sum.Notes {
		if i == maxNotes && !verbose {
			fmt.Fprintf(w, "… and %d more notes (--verbose prints them)\n", len(sum.Notes)-maxNotes)
			break
		}
		fmt.Fprintln(w, "note:", n)
	}
	if sum.Extract != "" {
		fmt.Fprintf(w, "wrote %s: the prices of %d answers, for go generate ./internal/catalog.\n", sum.Extract, len(sum.Results))
	}
	if sum.Out != "" {
		fmt.Fprintf(w, "wrote %s: %d offers. Use it as the provider's catalog_file.\n", sum.Out, sum.Offers)
	}
}

// splitList splits a comma-separated flag.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
