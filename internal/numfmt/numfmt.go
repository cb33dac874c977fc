// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package numfmt rounds numbers where they leave the planning packages, so
// the same configuration plans identically on every machine, and formats
// numbers for messages and explanations. It is the only place either is
// done (ARCHITECTURE.md, "Numbers").
package numfmt

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Decimals kept at the output boundary: money to cents and hours to 0.01
// (ARCHITECTURE.md, "Numbers"), other measures (GB, tokens/s,
// milliseconds, kWh, kg) likewise to 0.01, ratios and hourly list prices
// to 4 decimals (the sources quote sub-cent rates such as 0.7582 $/h).
const (
	hundredths     = 100
	tenThousandths = 1e4
)

// USD rounds money to cents.
func USD(v float64) float64 { return math.Round(v*hundredths) / hundredths }

// Hours rounds durations in hours to 0.01.
func Hours(v float64) float64 { return math.Round(v*hundredths) / hundredths }

// Measure rounds a physical quantity (GB, tokens/s, ms, kWh, kg) to 0.01.
func Measure(v float64) float64 { return math.Round(v*hundredths) / hundredths }

// Ratio rounds a fraction or score to 4 decimals.
func Ratio(v float64) float64 { return math.Round(v*tenThousandths) / tenThousandths }

// Price rounds an hourly list price to 1/10,000 USD.
func Price(v float64) float64 { return math.Round(v*tenThousandths) / tenThousandths }

// Thousands formats v with the given decimals and comma separators:
// Thousands(1234567.891, 2) = "1,234,567.89".
func Thousands(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, ch := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	b.WriteString(frac)
	return b.String()
}

// Int formats v rounded half away from zero to a whole number, with comma
// separators: Int(27971.1) = "27,971".
func Int(v float64) string { return Thousands(math.Round(v), 0) }

// Trim formats v with at most decimals digits, dropping trailing zeros:
// Trim(1.50, 2) = "1.5", Trim(3, 2) = "3".
func Trim(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Short formats a measure with a precision that suits its size: whole
// numbers with separators from 100, one decimal from 10, two below:
// Short(1234.5) = "1,235", Short(41.19) = "41.2", Short(2.395) = "2.40".
func Short(v float64) string {
	switch {
	case v >= 100:
		return Int(v)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// Nonzero formats v as Thousands(v, decimals) does, except that a value
// that is not 0 never reads as 0: below the last decimal it keeps two
// significant digits, rounded away from zero (a need of 0.00012 h is
// "0.00012", not "0.0"): Nonzero(0.000123, 1) = "0.00013".
func Nonzero(v float64, decimals int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= 0.5*math.Pow(10, -float64(decimals)) {
		return Thousands(v, decimals)
	}
	exp := math.Floor(math.Log10(math.Abs(v))) - 1 // two significant digits
	scale := math.Pow(10, exp)
	r := math.Copysign(math.Ceil(math.Abs(v)/scale)*scale, v)
	if math.Abs(r) >= 1e-4 {
		return strconv.FormatFloat(r, 'g', 2, 64) // plain notation down to 10^-4
	}
	m, e, _ := strings.Cut(strconv.FormatFloat(r, 'e', 1, 64), "e")
	n, _ := strconv.Atoi(e)
	return fmt.Sprintf("%s × 10^%d", strings.TrimSuffix(strings.TrimRight(m, "0"), "."), n)
}

// Percent formats a ratio as a percentage, the one way every message,
// explanation and table prints one: no space before the sign, at most one
// decimal with a trailing zero dropped, and two significant digits (down
// to 0.0001%) for a share too small for one decimal, so it does not read
// as 0: Percent(0.9712) = "97.1%", Percent(0.02) = "2%", Percent(0.00049)
// = "0.049%", Percent(-0.5) = "-50%".
func Percent(ratio float64) string {
	return percentDigits(ratio*100) + "%"
}

// SignedPercent formats a relative change as Percent does, with its sign:
// SignedPercent(0.123) = "+12.3%", SignedPercent(-0.5) = "−50%" (a minus
// sign), SignedPercent(0) = "±0%".
func SignedPercent(ratio float64) string {
	s := percentDigits(math.Abs(ratio * 100))
	switch {
	case s == "0":
		return "±0%"
	case ratio > 0:
		return "+" + s + "%"
	}
	return "−" + s + "%"
}

// maxPercentDecimals bounds the decimals of a small percentage (0.0001%).
const maxPercentDecimals = 4

// percentDigits writes a percentage: one decimal at most, two significant
// digits below 0.05, "0" (never "-0") for what rounds to zero.
func percentDigits(p float64) string {
	decimals := 1
	if a := math.Abs(p); a > 0 && a < 0.05 {
		decimals = min(maxPercentDecimals, 1-int(math.Floor(math.Log10(a))))
	}
	s := Trim(p, decimals)
	if s == "-0" {
		return "0"
	}
	return s
}

// NonFinite returns where v (a struct, slice, map or pointer of them)
// holds a NaN or infinite float64, as a Go path ("Result.Breakdown[2].USD
// = +Inf"), or "" when every number in it is finite. The tests of the
// planning packages and of the provider check their results with it: no
// such number may reach the Terraform boundary.
func NonFinite(v any, name string) string { return nonFinite(reflect.ValueOf(v), name) }

func nonFinite(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprintf("%s = %v", path, f)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return nonFinite(v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if p := nonFinite(v.Field(i), path+"."+v.Type().Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p := nonFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if p := nonFinite(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); p != "" {
				return p
			}
		}
	}
	return ""
}
