// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// servePluginEnv makes the test binary run main() as the plugin, the way
// Terraform starts it (TestPluginOpensNoNetworkSocket).
const servePluginEnv = "GPU_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(servePluginEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// terraformMagicCookie is what Terraform sets to start a provider plugin
// (terraform-plugin-go tf6server's go-plugin handshake).
const terraformMagicCookie = "TF_PLUGIN_MAGIC_COOKIE=d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"

// TestPluginOpensNoNetworkSocket starts the binary as Terraform does and,
// once it has printed its handshake, checks that it listens on a Unix
// socket and holds no TCP or UDP socket: the served path opens no network
// connection (only `refresh`, run by hand, does; internal/provider's
// TestProviderImportsNoNetwork covers the data sources' code).
func TestPluginOpensNoNetworkSocket(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), servePluginEnv+"=1", terraformMagicCookie, "PLUGIN_PROTOCOL_VERSIONS=6")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- l
	}()
	var handshake string
	select {
	case handshake = <-line:
	case <-time.After(60 * time.Second):
		t.Fatalf("no handshake; stderr:\n%s", stderr.String())
	}
	// core version|protocol version|network|address|protocol
	f := strings.Split(strings.TrimSpace(handshake), "|")
	if len(f) < 5 || f[1] != "6" || f[2] != "unix" || f[4] != "grpc" {
		t.Fatalf("handshake %q: want protocol 6 over a unix socket; stderr:\n%s", handshake, stderr.String())
	}
	inet := inetSocketInodes(t)
	fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	sockets := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd", fd.Name()))
		if err != nil || !strings.HasPrefix(target, "socket:[") {
			continue
		}
		sockets++
		if inet[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] {
			t.Errorf("fd %s is a TCP or UDP socket", fd.Name())
		}
	}
	if sockets == 0 {
		t.Error("no socket at all: the check would not see the plugin's Unix socket either")
	}
}

// inetSocketInodes are the inodes of every TCP and UDP socket of the
// network namespace (/proc/net/{tcp,tcp6,udp,udp6}, column 10).
func inetSocketInodes(t *testing.T) map[string]bool {
	out := map[string]bool{}
	for _, f := range []string{"tcp", "tcp6", "udp", "udp6"} {
		data, err := os.ReadFile("/proc/net/" + f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(data), "\n")[1:] {
			if cols := strings.Fields(l); len(cols) > 9 {
				out[cols[9]] = true
			}
		}
	}
	if len(out) == 0 {
		t.Log("no TCP or UDP socket in the namespace")
	}
	return out
}

// TestVersionAndRefreshDispatch: -version still prints the version line,
// and `refresh` reaches the subcommand (its usage), not the server.
func TestVersionAndRefreshDispatch(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-version"}, "terraform-provider-gpu dev " + runtime.GOOS + "/" + runtime.GOARCH},
		{[]string{"refresh", "-help"}, "Usage: terraform-provider-gpu refresh --out prices.yaml"},
	} {
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), servePluginEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: %v\n%s\nwant containing %q", tc.args, err, out, tc.want)
		}
	}
}

// TestGarbageCollectorSettings: the plugin collects less often than Go's
// default but keeps its heap under memoryLimit (a 64 MB catalog_file stays
// well under 1 GB RSS); GOGC and GOMEMLIMIT set by the user win.
func TestGarbageCollectorSettings(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	for _, tc := range []struct {
		gogc, gomemlimit string
		wantPercent      int
		wantLimit        int64
	}{
		{"", "", gcPercent, memoryLimit},
		{"50", "", 100, memoryLimit}, // the runtime read GOGC itself; the test process started with 100
		{"", "2GiB", gcPercent, math.MaxInt64},
	} {
		t.Setenv("GOGC", tc.gogc)
		t.Setenv("GOMEMLIMIT", tc.gomemlimit)
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		collectGarbageLessOften()
		if got := debug.SetGCPercent(100); got != tc.wantPercent {
			t.Errorf("GOGC=%q: GC percent %d, want %d", tc.gogc, got, tc.wantPercent)
		}
		if got := debug.SetMemoryLimit(-1); got != tc.wantLimit {
			t.Errorf("GOMEMLIMIT=%q: memory limit %d, want %d", tc.gomemlimit, got, tc.wantLimit)
		}
	}
}
