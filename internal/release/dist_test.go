// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package release_test

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/release"
)

const fakeVersion = "0.1.0"

// fakePlatforms cover every executable format and word size the checker
// reads.
var fakePlatforms = []string{"linux_amd64", "freebsd_arm", "darwin_arm64", "windows_386"}

const goodManifest = `{"version": 1, "metadata": {"protocol_versions": ["6.0"]}}`

// TestCheckAcceptsGoodLayout builds a small registry-shaped dist directory
// with fake binaries (real executable headers, no code) and expects it to
// pass.
func TestCheckAcceptsGoodLayout(t *testing.T) {
	dir := goodDist(t)
	d, err := release.Check(dir, fakePlatforms)
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != fakeVersion || len(d.Archives) != len(fakePlatforms) || len(d.Sums) != len(fakePlatforms)+1 {
		t.Errorf("Check = version %q, %d archives, %d sums; want %q, %d, %d",
			d.Version, len(d.Archives), len(d.Sums), fakeVersion, len(fakePlatforms), len(fakePlatforms)+1)
	}
}

// TestCheckRejectsBrokenLayouts breaks the good layout one way at a time;
// the checker must name each break.
func TestCheckRejectsBrokenLayouts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{{
		name:   "missing platform",
		damage: func(t *testing.T, dir string) { removeArchive(t, dir, "linux_amd64") },
		want:   "no archive for linux_amd64",
	}, {
		name:   "unexpected platform",
		damage: archiveOf("linux_arm64", release.BinaryName(fakeVersion, "linux"), "linux", "arm64"),
		want:   "linux_arm64 is not one of the expected platforms",
	}, {
		name: "archive named without version",
		damage: func(t *testing.T, dir string) {
			renameArchive(t, dir, "linux_amd64", release.Name+"_linux_amd64.zip")
		},
		want: "terraform-provider-gpu_linux_amd64.zip: not named",
	}, {
		name:   "binary without the v prefix",
		damage: archiveOf("linux_amd64", release.Name+"_"+fakeVersion, "linux", "amd64"),
		want:   `holds "terraform-provider-gpu_0.1.0"`,
	}, {
		name:   "windows binary without .exe",
		damage: archiveOf("windows_386", release.BinaryName(fakeVersion, "linux"), "windows", "386"),
		want:   "want exactly one terraform-provider-gpu_v0.1.0.exe, found 0",
	}, {
		name:   "binary in a directory",
		damage: archiveOf("darwin_arm64", "bin/"+release.BinaryName(fakeVersion, "darwin"), "darwin", "arm64"),
		want:   `holds "bin/terraform-provider-gpu_v0.1.0"`,
	}, {
		name: "extra file",
		damage: func(t *testing.T, dir string) {
			writeArchive(t, dir, "linux_amd64", map[string][]byte{
				release.BinaryName(fakeVersion, "linux"): fakeExecutable(t, "linux", "amd64"),
				"terraform-provider-gpu":                 fakeExecutable(t, "linux", "amd64"),
			})
		},
		want: `holds "terraform-provider-gpu": an archive holds only`,
	}, {
		name:   "binary for another architecture",
		damage: archiveOf("linux_amd64", release.BinaryName(fakeVersion, "linux"), "linux", "arm64"),
		want:   "built for linux/arm64, not linux/amd64",
	}, {
		name:   "linux binary in the freebsd archive",
		damage: archiveOf("freebsd_arm", release.BinaryName(fakeVersion, "freebsd"), "linux", "arm"),
		want:   "built for linux/arm, not freebsd/arm",
	}, {
		name: "not an executable",
		damage: func(t *testing.T, dir string) {
			writeArchive(t, dir, "darwin_arm64", map[string][]byte{release.BinaryName(fakeVersion, "darwin"): []byte("#!/bin/sh\n")})
		},
		want: "not an ELF, PE or Mach-O executable",
	}, {
		name: "binary without the executable bit",
		damage: func(t *testing.T, dir string) {
			path := filepath.Join(dir, release.ArchiveName(fakeVersion, "linux_amd64"))
			writeZip(t, path, map[string][]byte{release.BinaryName(fakeVersion, "linux"): fakeExecutable(t, "linux", "amd64")}, 0o644)
			writeSums(t, dir)
		},
		want: "is not executable",
	}, {
		name: "archive changed after checksumming",
		damage: func(t *testing.T, dir string) {
			sums := readFile(t, dir, release.SumsName(fakeVersion))
			writeArchive(t, dir, "linux_amd64", map[string][]byte{
				release.BinaryName(fakeVersion, "linux"): fakeExecutable(t, "linux", "amd64"),
				"LICENSE":                                []byte("changed"),
			})
			writeFile(t, dir, release.SumsName(fakeVersion), sums)
		},
		want: "SHA-256 of terraform-provider-gpu_0.1.0_linux_amd64.zip is",
	}, {
		name:   "archive missing from SHA256SUMS",
		damage: func(t *testing.T, dir string) { dropFromSums(t, dir, "windows_386.zip") },
		want:   "does not list terraform-provider-gpu_0.1.0_windows_386.zip",
	}, {
		name:   "manifest missing from SHA256SUMS",
		damage: func(t *testing.T, dir string) { dropFromSums(t, dir, "_manifest.json") },
		want:   "does not list terraform-provider-gpu_0.1.0_manifest.json",
	}, {
		name: "SHA256SUMS lists a file outside the release",
		damage: func(t *testing.T, dir string) {
			writeFile(t, dir, release.Name+"_0.1.0_source.tar.gz", "source")
			sum, err := release.FileSHA256(filepath.Join(dir, release.Name+"_0.1.0_source.tar.gz"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, release.SumsName(fakeVersion), readFile(t, dir, release.SumsName(fakeVersion))+sum+"  terraform-provider-gpu_0.1.0_source.tar.gz\n")
		},
		want: "lists terraform-provider-gpu_0.1.0_source.tar.gz, which is neither an archive nor the manifest",
	}, {
		name: "SHA256SUMS lists an archive that is missing",
		damage: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, release.ArchiveName(fakeVersion, "darwin_arm64"))); err != nil {
				t.Fatal(err)
			}
		},
		want: "lists terraform-provider-gpu_0.1.0_darwin_arm64.zip, which is missing",
	}, {
		name: "malformed SHA256SUMS line",
		damage: func(t *testing.T, dir string) {
			editSums(t, dir, func(line string) string { return strings.Replace(line, "  ", " x ", 1) })
		},
		want: `want "<sha256>  <file>"`,
	}, {
		name: "manifest declares protocol 5",
		damage: func(t *testing.T, dir string) {
			writeFile(t, dir, release.ManifestName(fakeVersion), `{"version": 1, "metadata": {"protocol_versions": ["5.0"]}}`)
			writeSums(t, dir)
		},
		want: `want version 1 and protocol_versions ["6.0"]`,
	}, {
		name: "manifest with an unknown field",
		damage: func(t *testing.T, dir string) {
			writeFile(t, dir, release.ManifestName(fakeVersion), `{"version": 1, "metadata": {"protocol_version": ["6.0"]}}`)
			writeSums(t, dir)
		},
		want: `unknown field "protocol_version"`,
	}, {
		name: "manifest missing",
		damage: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, release.ManifestName(fakeVersion))); err != nil {
				t.Fatal(err)
			}
		},
		want: "_manifest.json: no such file",
	}, {
		name: "version with a leading v",
		damage: func(t *testing.T, dir string) {
			if err := os.Rename(filepath.Join(dir, release.SumsName(fakeVersion)), filepath.Join(dir, release.SumsName("v"+fakeVersion))); err != nil {
				t.Fatal(err)
			}
		},
		want: `version "v0.1.0" is not a lowercase semantic version`,
	}, {
		name: "pre-release with capitals",
		damage: func(t *testing.T, dir string) {
			if err := os.Rename(filepath.Join(dir, release.SumsName(fakeVersion)), filepath.Join(dir, release.SumsName(fakeVersion+"-SNAPSHOT-abc1234"))); err != nil {
				t.Fatal(err)
			}
		},
		want: `version "0.1.0-SNAPSHOT-abc1234" is not a lowercase semantic version`,
	}, {
		name: "two SHA256SUMS files",
		damage: func(t *testing.T, dir string) {
			writeFile(t, dir, release.SumsName("0.2.0"), "")
		},
		want: "want exactly one terraform-provider-gpu_<version>_SHA256SUMS file, found 2",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := goodDist(t)
			tc.damage(t, dir)
			_, err := release.Check(dir, fakePlatforms)
			if err == nil {
				t.Fatalf("Check accepted the broken layout; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check error does not contain %q:\n%v", tc.want, err)
			}
			if testing.Verbose() {
				t.Log(err)
			}
		})
	}
}

// TestExecutablePlatform reads the fake headers back for every platform a
// release builds.
func TestExecutablePlatform(t *testing.T) {
	for _, goos := range []string{"linux", "freebsd", "darwin", "windows"} {
		for _, goarch := range []string{"amd64", "386", "arm64", "arm"} {
			gotOS, gotArch, err := release.ExecutablePlatform(fakeExecutable(t, goos, goarch))
			if err != nil || gotOS != goos || gotArch != goarch {
				t.Errorf("ExecutablePlatform(%s/%s) = %s/%s, %v", goos, goarch, gotOS, gotArch, err)
			}
		}
	}
}

// goodDist writes a valid release of fakePlatforms into a temporary
// directory: archives with the binary and LICENSE, the manifest and
// SHA256SUMS.
func goodDist(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range fakePlatforms {
		goos, goarch, _ := strings.Cut(p, "_")
		writeZip(t, filepath.Join(dir, release.ArchiveName(fakeVersion, p)), map[string][]byte{
			release.BinaryName(fakeVersion, goos): fakeExecutable(t, goos, goarch),
			"LICENSE":                             []byte("MPL-2.0"),
		}, 0o755)
	}
	writeFile(t, dir, release.ManifestName(fakeVersion), goodManifest)
	writeSums(t, dir)
	return dir
}

// archiveOf breaks a layout by replacing a platform's archive with one
// holding only the named file, a fake executable for goos/goarch.
func archiveOf(platform, name, goos, goarch string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		writeArchive(t, dir, platform, map[string][]byte{name: fakeExecutable(t, goos, goarch)})
	}
}

// writeArchive replaces a platform's archive and rewrites SHA256SUMS, so
// only the archive's content is wrong.
func writeArchive(t *testing.T, dir, platform string, files map[string][]byte) {
	t.Helper()
	writeZip(t, filepath.Join(dir, release.ArchiveName(fakeVersion, platform)), files, 0o755)
	writeSums(t, dir)
}

func removeArchive(t *testing.T, dir, platform string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, release.ArchiveName(fakeVersion, platform))); err != nil {
		t.Fatal(err)
	}
	writeSums(t, dir)
}

func renameArchive(t *testing.T, dir, platform, name string) {
	t.Helper()
	if err := os.Rename(filepath.Join(dir, release.ArchiveName(fakeVersion, platform)), filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	writeSums(t, dir)
}

func writeZip(t *testing.T, path string, files map[string][]byte, mode os.FileMode) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range files {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeSums writes SHA256SUMS over every zip and the manifest in dir, as
// GoReleaser does.
func writeSums(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.zip"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(dir, release.ManifestName(fakeVersion)))
	var sums strings.Builder
	for _, f := range files {
		sum, err := release.FileSHA256(f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sums, "%s  %s\n", sum, filepath.Base(f))
	}
	writeFile(t, dir, release.SumsName(fakeVersion), sums.String())
}

// editSums rewrites SHA256SUMS line by line; an empty result drops the line.
func editSums(t *testing.T, dir string, edit func(string) string) {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, dir, release.SumsName(fakeVersion))), "\n") {
		if l := edit(line); l != "" {
			out = append(out, l)
		}
	}
	writeFile(t, dir, release.SumsName(fakeVersion), strings.Join(out, "\n")+"\n")
}

// dropFromSums removes the SHA256SUMS line of the file whose name ends
// with suffix.
func dropFromSums(t *testing.T, dir, suffix string) {
	t.Helper()
	editSums(t, dir, func(line string) string {
		if strings.HasSuffix(line, suffix) {
			return ""
		}
		return line
	})
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	writeText(t, filepath.Join(dir, name), content)
}

// fakeExecutable returns just the file header Go's linker writes for a
// platform: enough for debug/elf, debug/macho and debug/pe, with no
// sections or code.
func fakeExecutable(t *testing.T, goos, goarch string) []byte {
	t.Helper()
	var buf bytes.Buffer
	le := binary.LittleEndian
	wide := goarch == "amd64" || goarch == "arm64"
	var hdr any
	switch goos {
	case "linux", "freebsd":
		machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "386": elf.EM_386, "arm64": elf.EM_AARCH64, "arm": elf.EM_ARM}[goarch]
		var ident [elf.EI_NIDENT]byte
		copy(ident[:], elf.ELFMAG)
		ident[elf.EI_CLASS] = byte(elf.ELFCLASS32)
		if wide {
			ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
		}
		ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
		ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
		if goos == "freebsd" {
			ident[elf.EI_OSABI] = byte(elf.ELFOSABI_FREEBSD)
		}
		if wide {
			hdr = elf.Header64{Ident: ident, Type: uint16(elf.ET_EXEC), Machine: uint16(machine), Version: uint32(elf.EV_CURRENT), Ehsize: 64}
		} else {
			hdr = elf.Header32{Ident: ident, Type: uint16(elf.ET_EXEC), Machine: uint16(machine), Version: uint32(elf.EV_CURRENT), Ehsize: 52}
		}
	case "darwin":
		cpu := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "386": macho.Cpu386, "arm64": macho.CpuArm64, "arm": macho.CpuArm}[goarch]
		fh := macho.FileHeader{Magic: macho.Magic32, Cpu: cpu, Type: macho.TypeExec}
		hdr = fh
		if wide {
			fh.Magic = macho.Magic64
			// The 64-bit header ends with a reserved word.
			hdr = struct {
				macho.FileHeader
				Reserved uint32
			}{fh, 0}
		}
	case "windows":
		machine := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "386": pe.IMAGE_FILE_MACHINE_I386, "arm64": pe.IMAGE_FILE_MACHINE_ARM64, "arm": pe.IMAGE_FILE_MACHINE_ARMNT}[goarch]
		dos := make([]byte, 0x80) // debug/pe reads a 96-byte DOS header
		copy(dos, "MZ")
		le.PutUint32(dos[0x3c:], 0x80) // offset of the PE signature
		buf.Write(dos)
		buf.WriteString("PE\x00\x00")
		hdr = pe.FileHeader{Machine: machine}
	default:
		t.Fatalf("no fake executable for %s", goos)
	}
	if err := binary.Write(&buf, le, hdr); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
