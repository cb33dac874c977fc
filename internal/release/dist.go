// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package release checks a GoReleaser dist/ directory against what the
// Terraform Registry requires of a provider release, before anything is
// signed or uploaded: one zip per platform named
// terraform-provider-gpu_<version>_<os>_<arch>.zip holding the binary
// terraform-provider-gpu_v<version> built for that platform, a
// terraform-provider-gpu_<version>_SHA256SUMS file listing every archive and
// the manifest with their true hashes, and
// terraform-provider-gpu_<version>_manifest.json declaring protocol 6.0.
// Standard library only; `make release-check` runs it on `make
// release-snapshot`'s output.
package release

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Name is the project name GoReleaser puts in front of every artifact.
const Name = "terraform-provider-gpu"

// ProtocolVersions is what the registry manifest must declare: the
// provider is built on terraform-plugin-framework, which serves protocol 6.
var ProtocolVersions = []string{"6.0"}

// ArchiveDocs are the only files an archive may hold besides the binary
// (archives.files in .goreleaser.yml).
var ArchiveDocs = []string{"CHANGELOG.md", "LICENSE", "README.md"}

// semver is the version shape the registry accepts in file names: no
// leading "v", optional pre-release and build parts. Lowercase only:
// Terraform lowercases the version it reads from a package's file name, so
// a pre-release such as 1.0.0-SNAPSHOT-abc would never match the exact
// constraint that selects it.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9a-z.-]+)?(\+[0-9a-z.-]+)?$`)

// Dist is a release directory that passed Check.
type Dist struct {
	Dir     string
	Version string
	// Archives maps a platform ("linux_amd64") to its archive's file name.
	Archives map[string]string
	// Sums maps each file SHA256SUMS lists to its SHA-256, in hex.
	Sums map[string]string
}

// SumsName is the checksum file's name for a version.
func SumsName(version string) string { return Name + "_" + version + "_SHA256SUMS" }

// ManifestName is the registry manifest's file name for a version.
func ManifestName(version string) string { return Name + "_" + version + "_manifest.json" }

// ArchiveName is the archive's file name for a version and platform
// ("linux_amd64").
func ArchiveName(version, platform string) string {
	return Name + "_" + version + "_" + platform + ".zip"
}

// BinaryName is the executable an archive must hold: Terraform finds a
// provider by the "terraform-provider-<type>" prefix and the registry
// convention adds "_v<version>" (and ".exe" on Windows).
func BinaryName(version, goos string) string {
	if goos == "windows" {
		return Name + "_v" + version + ".exe"
	}
	return Name + "_v" + version
}

// Check verifies the release in dir: the version named by its single
// SHA256SUMS file, exactly one archive for each of platforms ("linux_amd64",
// ...) and none other, every archive's content and binary format, the
// checksums and the manifest. The error lists every problem found.
func Check(dir string, platforms []string) (*Dist, error) {
	version, err := findVersion(dir)
	if err != nil {
		return nil, err
	}
	d := &Dist{Dir: dir, Version: version, Archives: map[string]string{}}
	problems := d.checkArchives(platforms)
	problems = append(problems, d.checkSums()...)
	if err := checkManifest(filepath.Join(dir, ManifestName(version))); err != nil {
		problems = append(problems, err)
	}
	if err := errors.Join(problems...); err != nil {
		return nil, fmt.Errorf("release %s in %s:\n%w", version, dir, err)
	}
	return d, nil
}

// findVersion reads the version from the one *_SHA256SUMS file.
func findVersion(dir string) (string, error) {
	sums, err := filepath.Glob(filepath.Join(dir, Name+"_*_SHA256SUMS"))
	if err != nil {
		return "", err
	}
	if len(sums) != 1 {
		return "", fmt.Errorf("%s: want exactly one %s file, found %d", dir, SumsName("<version>"), len(sums))
	}
	base := filepath.Base(sums[0])
	version := strings.TrimSuffix(strings.TrimPrefix(base, Name+"_"), "_SHA256SUMS")
	if !semver.MatchString(version) {
		return "", fmt.Errorf("%s: version %q is not a lowercase semantic version without a leading \"v\", as the registry and Terraform's installer need in file names", base, version)
	}
	return version, nil
}

// checkArchives matches the zips in the directory against platforms and
// checks each one's content.
func (d *Dist) checkArchives(platforms []string) []error {
	zips, err := filepath.Glob(filepath.Join(d.Dir, "*.zip"))
	if err != nil {
		return []error{err}
	}
	var problems []error
	prefix := Name + "_" + d.Version + "_"
	for _, path := range zips {
		base := filepath.Base(path)
		platform := strings.TrimSuffix(strings.TrimPrefix(base, prefix), ".zip")
		goos, goarch, ok := strings.Cut(platform, "_")
		if !strings.HasPrefix(base, prefix) || !ok || goos == "" || goarch == "" || strings.Contains(goarch, "_") {
			problems = append(problems, fmt.Errorf("%s: not named %s", base, ArchiveName(d.Version, "<os>_<arch>")))
			continue
		}
		if !slices.Contains(platforms, platform) {
			problems = append(problems, fmt.Errorf("%s: %s is not one of the expected platforms %s", base, platform, strings.Join(platforms, ", ")))
			continue
		}
		d.Archives[platform] = base
		problems = append(problems, checkArchive(path, d.Version, goos, goarch)...)
	}
	for _, p := range platforms {
		if _, ok := d.Archives[p]; !ok {
			problems = append(problems, fmt.Errorf("no archive for %s: want %s", p, ArchiveName(d.Version, p)))
		}
	}
	return problems
}

// checkArchive checks that a zip holds the binary under its exact name,
// executable and built for the platform, plus nothing but ArchiveDocs.
func checkArchive(path, version, goos, goarch string) []error {
	base := filepath.Base(path)
	zr, err := zip.OpenReader(path)
	if err != nil {
		return []error{fmt.Errorf("%s: %w", base, err)}
	}
	defer zr.Close()
	want := BinaryName(version, goos)
	var problems []error
	binaries := 0
	for _, f := range zr.File {
		switch {
		case f.Name == want:
			binaries++
			if goos != "windows" && f.Mode()&0o111 == 0 {
				problems = append(problems, fmt.Errorf("%s: %s is not executable (mode %v)", base, want, f.Mode()))
			}
			if err := checkBinary(f, goos, goarch); err != nil {
				problems = append(problems, fmt.Errorf("%s: %s: %w", base, want, err))
			}
		case slices.Contains(ArchiveDocs, f.Name):
		default:
			problems = append(problems, fmt.Errorf("%s holds %q: an archive holds only %s and %s", base, f.Name, want, strings.Join(ArchiveDocs, ", ")))
		}
	}
	if binaries != 1 {
		problems = append(problems, fmt.Errorf("%s: want exactly one %s, found %d", base, want, binaries))
	}
	return problems
}

// checkBinary reads an archived binary and checks its executable format.
func checkBinary(f *zip.File, goos, goarch string) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return err
	}
	gotOS, gotArch, err := ExecutablePlatform(data)
	if err != nil {
		return err
	}
	if gotOS != goos || gotArch != goarch {
		return fmt.Errorf("built for %s/%s, not %s/%s", gotOS, gotArch, goos, goarch)
	}
	return nil
}

// checkSums checks that SHA256SUMS lists exactly the archives and the
// manifest, each with its true SHA-256.
func (d *Dist) checkSums() []error {
	name := SumsName(d.Version)
	raw, err := os.ReadFile(filepath.Join(d.Dir, name))
	if err != nil {
		return []error{err}
	}
	var problems []error
	d.Sums = map[string]string{}
	for i, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 2 || len(fields[0]) != sha256.Size*2 {
			problems = append(problems, fmt.Errorf("%s line %d: want \"<sha256>  <file>\", got %q", name, i+1, line))
			continue
		}
		file := strings.TrimPrefix(fields[1], "*")
		if _, dup := d.Sums[file]; dup {
			problems = append(problems, fmt.Errorf("%s lists %s twice", name, file))
		}
		d.Sums[file] = strings.ToLower(fields[0])
	}
	want := []string{ManifestName(d.Version)}
	zips, err := filepath.Glob(filepath.Join(d.Dir, "*.zip"))
	if err != nil {
		return append(problems, err)
	}
	for _, z := range zips {
		want = append(want, filepath.Base(z))
	}
	for _, file := range want {
		if _, ok := d.Sums[file]; !ok {
			problems = append(problems, fmt.Errorf("%s does not list %s", name, file))
		}
	}
	for _, file := range slices.Sorted(maps.Keys(d.Sums)) {
		sum := d.Sums[file]
		got, err := FileSHA256(filepath.Join(d.Dir, file))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, fmt.Errorf("%s lists %s, which is missing", name, file))
		case err != nil:
			problems = append(problems, fmt.Errorf("%s lists %s: %w", name, file, err))
		case !slices.Contains(want, file):
			problems = append(problems, fmt.Errorf("%s lists %s, which is neither an archive nor the manifest", name, file))
		case got != sum:
			problems = append(problems, fmt.Errorf("%s: SHA-256 of %s is %s, the file lists %s", name, file, got, sum))
		}
	}
	return problems
}

// FileSHA256 is the hex SHA-256 of a file's content.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// PackageHashV1 is the "h1:" hash Terraform records in .terraform.lock.hcl
// for a provider zip it installs from a mirror: the Go module dirhash Hash1
// of the archive's files (SHA-256 of the sorted "<sha256>  <name>" lines,
// base64). The "zh:" hash, the archive's SHA-256 from SHA256SUMS, is
// recorded only for a package installed from the registry.
func PackageHashV1(archive string) (string, error) {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return "", err
	}
	defer zr.Close()
	files := slices.Clone(zr.File)
	slices.SortFunc(files, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	summary := sha256.New()
	for _, f := range files {
		rc, err := f.Open()
		if err != nil {
			return "", err
		}
		h := sha256.New()
		_, err = io.Copy(h, rc)
		rc.Close()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(summary, "%x  %s\n", h.Sum(nil), f.Name)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(summary.Sum(nil)), nil
}

// checkManifest checks the registry manifest: format version 1 and the
// protocol versions the provider serves.
func checkManifest(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m struct {
		Version  int `json:"version"`
		Metadata struct {
			ProtocolVersions []string `json:"protocol_versions"`
		} `json:"metadata"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if m.Version != 1 || !slices.Equal(m.Metadata.ProtocolVersions, ProtocolVersions) {
		return fmt.Errorf("%s: want version 1 and protocol_versions %q, got version %d and %q",
			filepath.Base(path), ProtocolVersions, m.Version, m.Metadata.ProtocolVersions)
	}
	return nil
}
