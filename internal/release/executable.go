// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package release

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"errors"
	"fmt"
)

// ExecutablePlatform reads an executable's headers and returns the Go
// GOOS/GOARCH it was built for, so an archive named for one platform cannot
// ship another's binary. It knows the formats Go writes for linux, freebsd
// (ELF; the Go linker marks FreeBSD in the OS/ABI byte), darwin (Mach-O) and
// windows (PE) on amd64, 386, arm64 and arm.
func ExecutablePlatform(data []byte) (goos, goarch string, err error) {
	r := bytes.NewReader(data)
	switch {
	case bytes.HasPrefix(data, []byte(elf.ELFMAG)):
		f, err := elf.NewFile(r)
		if err != nil {
			return "", "", err
		}
		goos = "linux"
		if f.OSABI == elf.ELFOSABI_FREEBSD {
			goos = "freebsd"
		}
		return platform(goos, f.Machine, map[elf.Machine]string{
			elf.EM_X86_64: "amd64", elf.EM_386: "386", elf.EM_AARCH64: "arm64", elf.EM_ARM: "arm",
		})
	case bytes.HasPrefix(data, []byte("MZ")):
		f, err := pe.NewFile(r)
		if err != nil {
			return "", "", err
		}
		return platform("windows", f.Machine, map[uint16]string{
			pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_I386: "386",
			pe.IMAGE_FILE_MACHINE_ARM64: "arm64", pe.IMAGE_FILE_MACHINE_ARMNT: "arm",
		})
	default:
		f, err := macho.NewFile(r)
		if err != nil {
			return "", "", errors.New("not an ELF, PE or Mach-O executable")
		}
		return platform("darwin", f.Cpu, map[macho.Cpu]string{
			macho.CpuAmd64: "amd64", macho.Cpu386: "386", macho.CpuArm64: "arm64", macho.CpuArm: "arm",
		})
	}
}

// platform maps a format's machine code to a GOARCH.
func platform[M comparable](goos string, machine M, arches map[M]string) (string, string, error) {
	arch, ok := arches[machine]
	if !ok {
		return "", "", fmt.Errorf("%s executable for an unknown machine %v", goos, machine)
	}
	return goos, arch, nil
}
