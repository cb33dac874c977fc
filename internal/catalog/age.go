// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

var (
	priceAgeOnce sync.Once
	priceAgeDays int
	priceAgeErr  error
)

// PriceAgeWarningDays is data/price_age.json's warn_after_days: a plan
// warns when the prices it uses are older than this many days (the
// provider's max_catalog_age_days can only lower it).
func PriceAgeWarningDays() (int, error) {
	priceAgeOnce.Do(func() {
		var doc struct {
			Description   string `json:"description"`
			WarnAfterDays struct {
				Value  float64 `json:"value"`
				Unit   string  `json:"unit"`
				Source string  `json:"source"`
			} `json:"warn_after_days"`
		}
		data, err := ReadDataFile("price_age.json")
		if err == nil {
			err = json.Unmarshal(data, &doc)
		}
		v := doc.WarnAfterDays.Value
		switch {
		case err != nil:
			priceAgeErr = fmt.Errorf("catalog: price_age.json: %w", err)
		case v < 1 || v != float64(int(v)) || doc.WarnAfterDays.Source == "":
			priceAgeErr = fmt.Errorf("catalog: price_age.json: warn_after_days must be a whole number of days >= 1 with a source, got %v", v)
		default:
			priceAgeDays = int(v)
		}
	})
	return priceAgeDays, priceAgeErr
}

// AgeDays is the whole days from date to now (0 for a zero date: a price
// whose source states no date is not called old).
func AgeDays(date, now time.Time) int {
	if date.IsZero() {
		return 0
	}
	return int(now.Sub(date).Hours() / 24)
}

// PriceAges summarises how old a catalog's prices are at now: how many
// of its prices (every instance offer under each pricing model it is sold
// under, and every serverless offer) are dated more than days ago, out of
// how many dated prices, and the newest date among them.
type PriceAges struct {
	Old, Dated int
	Newest     time.Time
}

// PriceAgesAt counts the catalog's prices older than days at now.
func (c *Catalog) PriceAgesAt(now time.Time, days int) PriceAges {
	var a PriceAges
	add := func(info PriceInfo) {
		if info.AsOf.IsZero() {
			return
		}
		a.Dated++
		if AgeDays(info.AsOf, now) > days {
			a.Old++
		}
		if info.AsOf.After(a.Newest) {
			a.Newest = info.AsOf
		}
	}
	for _, o := range c.Offers {
		for _, pm := range InstancePricingModels {
			if _, ok := o.Price(pm); ok {
				add(*o.PriceInfos.Of(pm))
			}
		}
	}
	for _, s := range c.Serverless {
		add(s.PriceInfo)
	}
	return a
}
