// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"maps"
	"sort"
	"strings"
)

// With returns a new catalog with c's date, exchange rates and serverless
// offers and the given lists, indexed for lookups: how package overlay
// builds the catalog a user file makes (each list validated entry by entry
// with the Validate functions first). The lists are used as given, not
// copied: the caller must not change them afterwards. c is not modified.
func (c *Catalog) With(accelerators []*Accelerator, clouds []*Cloud, regions []*Region, offers []*Offer) *Catalog {
	n := &Catalog{Date: c.Date, ExchangeRates: c.ExchangeRates, Serverless: c.Serverless,
		Accelerators: accelerators, Clouds: clouds, Regions: regions, Offers: offers}
	n.indexAccelerators()
	n.indexClouds()
	n.indexRegions()
	n.serverless = c.serverless
	n.offerByKey = c.offersIndexedAs(offers)
	return n
}

// offersIndexedAs returns the offer index of a list that is c's offers
// with some replaced in place and perhaps more appended (what an overlay
// makes): a copy of c's index changed where the list differs, in time
// proportional to the changes; any other list is indexed afresh.
func (c *Catalog) offersIndexedAs(offers []*Offer) map[offerID]*Offer {
	if len(offers) < len(c.Offers) || len(c.offerByKey) != len(c.Offers) {
		m := make(map[offerID]*Offer, len(offers))
		for _, o := range offers {
			m[o.id()] = o
		}
		return m
	}
	m := maps.Clone(c.offerByKey)
	for i, o := range c.Offers {
		if offers[i] != o {
			delete(m, o.id())
		}
	}
	for i, o := range offers {
		if i >= len(c.Offers) || c.Offers[i] != o {
			m[o.id()] = o
		}
	}
	return m
}

// index (re)builds the lookup maps. Called once after load or overlay.
func (c *Catalog) index() {
	c.indexAccelerators()
	c.indexClouds()
	c.indexRegions()
	c.serverless = make(map[string]*ServerlessOffer, len(c.Serverless))
	for _, s := range c.Serverless {
		c.serverless[serverlessKey(s.Cloud, s.Name, s.Region)] = s
	}
	c.offerByKey = make(map[offerID]*Offer, len(c.Offers))
	for _, o := range c.Offers {
		c.offerByKey[o.id()] = o
	}
}

// offerID identifies an offer: a map key without building a string. Its
// names are folded (NameKey): every lookup ignores case.
type offerID struct{ cloud, instanceType, region string }

func (o *Offer) id() offerID {
	return offerID{NameKey(o.Cloud), NameKey(o.InstanceType), NameKey(o.Region)}
}

// NameKey is the form in which names are compared: cloud, region,
// instance type and serverless offer names, like accelerator IDs and
// every enumerated value, match in any case and with surrounding spaces
// ignored ("AWS", " us-east-1", "P5.48XLARGE"). Lookups return the
// catalog's entry, whose fields keep the catalog's spelling.
func NameKey(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// regionKey and serverlessKey are the index keys of a region and of a
// serverless offer.
func regionKey(cloud, id string) string { return NameKey(cloud) + "/" + NameKey(id) }

func serverlessKey(cloud, name, region string) string {
	return NameKey(cloud) + "/" + NameKey(name) + "/" + NameKey(region)
}

func (c *Catalog) indexAccelerators() {
	c.accelByKey = make(map[string]*Accelerator, len(c.Accelerators)*3)
	for _, a := range c.Accelerators {
		c.accelByKey[strings.ToLower(a.ID)] = a
		for _, al := range a.Aliases {
			c.accelByKey[strings.ToLower(al)] = a
		}
	}
}

func (c *Catalog) indexClouds() {
	c.cloudByID = make(map[string]*Cloud, len(c.Clouds))
	for _, cl := range c.Clouds {
		c.cloudByID[NameKey(cl.ID)] = cl
	}
}

func (c *Catalog) indexRegions() {
	c.regionByID = make(map[string]*Region, len(c.Regions))
	for _, r := range c.Regions {
		c.regionByID[regionKey(r.Cloud, r.ID)] = r
	}
}

// indexInstanceTypes groups the offers by cloud and instance type, in
// catalog order: the groups are counted first, then cut from one array.
// It runs at the first OffersOf or InstanceTypes call (gpu_tco and the
// price-list importers), not with every catalog an overlay makes.
func (c *Catalog) indexInstanceTypes() {
	counts := map[offerID]int{}
	for _, o := range c.Offers {
		counts[offerID{cloud: NameKey(o.Cloud), instanceType: NameKey(o.InstanceType)}]++
	}
	all := make([]*Offer, 0, len(c.Offers))
	c.offersByIT = make(map[offerID][]*Offer, len(counts))
	for _, o := range c.Offers {
		k := offerID{cloud: NameKey(o.Cloud), instanceType: NameKey(o.InstanceType)}
		g, ok := c.offersByIT[k]
		if !ok {
			g, all = all[len(all):len(all):len(all)+counts[k]], all[:len(all)+counts[k]]
		}
		c.offersByIT[k] = append(g, o)
	}
}

// Accelerator finds an accelerator by canonical ID or alias, case-insensitively.
func (c *Catalog) Accelerator(idOrAlias string) (*Accelerator, bool) {
	a, ok := c.accelByKey[strings.ToLower(strings.TrimSpace(idOrAlias))]
	return a, ok
}

// Cloud finds a cloud by ID, in any case (NameKey).
func (c *Catalog) Cloud(id string) (*Cloud, bool) {
	cl, ok := c.cloudByID[NameKey(id)]
	return cl, ok
}

// Region finds a region of a cloud, in any case (NameKey).
func (c *Catalog) Region(cloud, id string) (*Region, bool) {
	r, ok := c.regionByID[regionKey(cloud, id)]
	return r, ok
}

// Offer finds the offer of an instance type in a region, in any case
// (NameKey).
func (c *Catalog) Offer(cloud, instanceType, region string) (*Offer, bool) {
	o, ok := c.offerByKey[offerID{NameKey(cloud), NameKey(instanceType), NameKey(region)}]
	return o, ok
}

// ServerlessOffer finds a serverless offer by cloud, name and region ("" for
// platform-placed workers), in any case (NameKey).
func (c *Catalog) ServerlessOffer(cloud, name, region string) (*ServerlessOffer, bool) {
	s, ok := c.serverless[serverlessKey(cloud, name, region)]
	return s, ok
}

// ServerlessOffersOf lists the serverless offers of one name across
// regions, in catalog order; names in any case (NameKey).
func (c *Catalog) ServerlessOffersOf(cloud, name string) []*ServerlessOffer {
	var out []*ServerlessOffer
	cloud, name = NameKey(cloud), NameKey(name)
	for _, s := range c.Serverless {
		if NameKey(s.Cloud) == cloud && NameKey(s.Name) == name {
			out = append(out, s)
		}
	}
	return out
}

// ServerlessNames lists the names of a cloud's serverless offers, sorted.
func (c *Catalog) ServerlessNames(cloud string) []string {
	var ids []string
	seen := map[string]bool{}
	cloud = NameKey(cloud)
	for _, s := range c.Serverless {
		if NameKey(s.Cloud) == cloud && !seen[s.Name] {
			seen[s.Name] = true
			ids = append(ids, s.Name)
		}
	}
	sort.Strings(ids)
	return ids
}

// OffersOf lists the offers of one instance type across regions, in
// catalog order; names in any case (NameKey).
func (c *Catalog) OffersOf(cloud, instanceType string) []*Offer {
	c.byITOnce.Do(c.indexInstanceTypes)
	return c.offersByIT[offerID{cloud: NameKey(cloud), instanceType: NameKey(instanceType)}]
}

// CloudIDs lists cloud IDs, sorted.
func (c *Catalog) CloudIDs() []string {
	ids := make([]string, 0, len(c.Clouds))
	for _, cl := range c.Clouds {
		ids = append(ids, cl.ID)
	}
	sort.Strings(ids)
	return ids
}

// AcceleratorIDs lists canonical accelerator IDs, sorted.
func (c *Catalog) AcceleratorIDs() []string {
	ids := make([]string, 0, len(c.Accelerators))
	for _, a := range c.Accelerators {
		ids = append(ids, a.ID)
	}
	sort.Strings(ids)
	return ids
}

// RegionIDs lists the region IDs of a cloud (all clouds when cloud is ""),
// sorted; the cloud in any case (NameKey).
func (c *Catalog) RegionIDs(cloud string) []string {
	var ids []string
	seen := map[string]bool{}
	cloud = NameKey(cloud)
	for _, r := range c.Regions {
		if (cloud == "" || NameKey(r.Cloud) == cloud) && !seen[r.ID] {
			seen[r.ID] = true
			ids = append(ids, r.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// InstanceTypes lists the instance types of a cloud, sorted.
func (c *Catalog) InstanceTypes(cloud string) []string {
	c.byITOnce.Do(c.indexInstanceTypes)
	var ids []string
	cloud = NameKey(cloud)
	for k, offers := range c.offersByIT {
		if k.cloud == cloud {
			ids = append(ids, offers[0].InstanceType) // as the catalog spells it
		}
	}
	sort.Strings(ids)
	return ids
}
