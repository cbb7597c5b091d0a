package dra

import (
	"fmt"
	"maps"
	"slices"

	resourcev1 "k8s.io/api/resource/v1"
)

// needsAllocator reports whether the objects use what only the allocator
// models: declared device templates, a published multi-allocatable
// device, or a request in allocationMode All, with firstAvailable
// alternatives or capacity requests.
func needsAllocator(o Objects) bool {
	if len(o.Templates) > 0 {
		return true
	}
	for _, s := range o.ResourceSlices {
		for _, d := range s.Spec.Devices {
			if d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations {
				return true
			}
		}
	}
	specs := make([]resourcev1.ResourceClaimSpec, 0, len(o.ResourceClaims)+len(o.ResourceClaimTemplates))
	for _, c := range o.ResourceClaims {
		specs = append(specs, c.Spec)
	}
	for _, c := range o.ResourceClaimTemplates {
		specs = append(specs, c.Spec.Spec)
	}
	for _, spec := range specs {
		for _, r := range spec.Devices.Requests {
			if len(r.FirstAvailable) > 0 {
				return true
			}
			if ex := r.Exactly; ex != nil && (ex.AllocationMode == resourcev1.DeviceAllocationModeAll ||
				ex.Capacity != nil && len(ex.Capacity.Requests) > 0) {
				return true
			}
		}
	}
	return false
}

// check reads a claim's spec the way the translator will use it, for its
// problems.
func (t *Translator) check(spec resourcev1.ResourceClaimSpec) *fieldError {
	var err *fieldError
	if t.alloc {
		_, err = t.allocSpec(spec)
	} else {
		_, err = t.requests(spec)
	}
	return err
}

// allocSpec checks a claim's requests as the API server does
// (resource.k8s.io/v1: exactly one of exactly and firstAvailable, at most
// 32 requests and 8 alternatives, a count only in ExactCount mode and
// above zero) and as Karpenter's allocator takes them (no admin access, a
// DeviceClass that exists), and reads them for the allocator.
func (t *Translator) allocSpec(spec resourcev1.ResourceClaimSpec) (allocClaim, *fieldError) {
	if err := t.validate(spec); err != nil {
		return allocClaim{}, err
	}
	return t.allocClaim(spec)
}

// validate is allocSpec's checks.
func (t *Translator) validate(spec resourcev1.ResourceClaimSpec) *fieldError {
	reqs := spec.Devices.Requests
	if len(reqs) > resourcev1.DeviceRequestsMaxSize {
		return &fieldError{"spec.devices.requests", fmt.Sprintf("%d requests, more than the %d the API allows", len(reqs), resourcev1.DeviceRequestsMaxSize), false}
	}
	for i, r := range reqs {
		path := fmt.Sprintf("spec.devices.requests[%d]", i)
		switch {
		case r.Exactly == nil && len(r.FirstAvailable) == 0:
			return &fieldError{path, "exactly one of exactly and firstAvailable is required", false}
		case r.Exactly != nil && len(r.FirstAvailable) > 0:
			return &fieldError{path, "exactly one of exactly and firstAvailable is required, not both", false}
		case len(r.FirstAvailable) > resourcev1.FirstAvailableDeviceRequestMaxSize:
			return &fieldError{path + ".firstAvailable", fmt.Sprintf("%d alternatives, more than the %d the API allows", len(r.FirstAvailable), resourcev1.FirstAvailableDeviceRequestMaxSize), false}
		}
		if ex := r.Exactly; ex != nil {
			if ex.AdminAccess != nil && *ex.AdminAccess {
				return &fieldError{path + ".exactly.adminAccess", "admin access is outside Karpenter's DRA support", false}
			}
			if err := t.checkExact(path+".exactly", ex.DeviceClassName, ex.AllocationMode, ex.Count); err != nil {
				return err
			}
			if err := checkCapacity(path+".exactly.capacity.requests", ex.Capacity); err != nil {
				return err
			}
		}
		for j, sub := range r.FirstAvailable {
			p := fmt.Sprintf("%s.firstAvailable[%d]", path, j)
			if err := t.checkExact(p, sub.DeviceClassName, sub.AllocationMode, sub.Count); err != nil {
				return err
			}
			if err := checkCapacity(p+".capacity.requests", sub.Capacity); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkExact checks one request or alternative's class and count.
func (t *Translator) checkExact(path, class string, mode resourcev1.DeviceAllocationMode, count int64) *fieldError {
	switch {
	case class == "":
		return &fieldError{path + ".deviceClassName", "a DeviceClass name is required", false}
	case t.classes[class] == nil:
		return &fieldError{path + ".deviceClassName", fmt.Sprintf("DeviceClass %q does not exist", class), true}
	}
	switch mode {
	case resourcev1.DeviceAllocationModeAll:
		if count != 0 {
			return &fieldError{path + ".count", "must not be set when allocationMode is All", false}
		}
	case resourcev1.DeviceAllocationModeExactCount, "":
		// The API server defaults an unset count to 1.
		if count < 0 {
			return &fieldError{path + ".count", fmt.Sprintf("%d: must be greater than zero", count), false}
		}
	default:
		return &fieldError{path + ".allocationMode", fmt.Sprintf("%q: must be ExactCount or All", mode), false}
	}
	return nil
}

// maxShare is the largest capacity request karpsim sums: two of them
// never overflow an int64.
const maxShare = 1 << 62

// checkCapacity refuses a negative capacity request: the API server of
// Kubernetes 1.34 lets one through, but a share below zero would give
// capacity back to a device, never a decision to trust.
func checkCapacity(path string, c *resourcev1.CapacityRequirements) *fieldError {
	if c == nil {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(c.Requests)) {
		q := c.Requests[name]
		switch {
		case q.Sign() < 0:
			return &fieldError{fmt.Sprintf("%s[%s]", path, name), fmt.Sprintf("%s: a capacity request cannot be negative", q.String()), false}
		case q.CmpInt64(maxShare) > 0:
			return &fieldError{fmt.Sprintf("%s[%s]", path, name), fmt.Sprintf("%s: more than karpsim counts (2^62)", q.String()), false}
		}
	}
	return nil
}
