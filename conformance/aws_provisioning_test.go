package conformance

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/pricing"
)

// The AWS provider's instance-type suite also provisions pods against its
// fake catalog (the 17 types of awsSuiteTypes) through an on-demand
// NodePool on AL2023. These cases solve the same pods over the same types,
// modelled by instancetypes.NewAWS.

// awsWorld is the suite's world: its types under the node class and
// options, and one NodePool with the suite's on-demand requirement unless
// opts replace it.
func awsWorld(t *T, nc *apis.EC2NodeClass, aws instancetypes.AWSOptions, opts ...poolOption) *schedWorld {
	t.Helper()
	if nc == nil {
		nc = awsNodeClass("al2023@latest", nil)
	}
	pool := nodePool("default", append([]poolOption{withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand)}, opts...)...)
	return newWorldOf(awsCatalog(t, nc, aws), pool)
}

// launchedOn places the pods and checks that each is on a claim launching
// want, and that they use n claims in all.
func launchedOn(t *T, w *schedWorld, want string, n int, pods ...*corev1.Pod) {
	t.Helper()
	res := w.solve(pods...)
	claims := map[string]bool{}
	for _, p := range pods {
		c := claimOf(t, res, p)
		require.Equal(t, want, c.InstanceType, "pod %s: %s", p.Name, describe(res))
		claims[c.Name] = true
	}
	require.Len(t, claims, n, describe(res))
}

// anyLaunch places one pod and checks that its claim launches a type for
// which ok holds.
func anyLaunch(t *T, w *schedWorld, p *corev1.Pod, ok func(it *instancetypes.InstanceType) bool) {
	t.Helper()
	res := w.solve(p)
	c := claimOf(t, res, p)
	it, found := w.catalog.Get(c.InstanceType)
	require.True(t, found)
	require.True(t, ok(it), "launched %s", c.InstanceType)
}

func extended(name, q string) podOption { return requests(name, q) }

// iceWorld is the suite's world with some offerings out of capacity.
func iceWorld(t *T, mark func(u *pricing.UnavailableOfferings), opts ...poolOption) *schedWorld {
	u := &pricing.UnavailableOfferings{}
	mark(u)
	return awsWorld(t, nil, instancetypes.AWSOptions{Unavailable: u, Now: now}, opts...)
}

var _ = register("aws-provisioning",
	conformanceCase{Name: "pod-eni-not-on-t3", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		p := unschedPod("p", "", nodeSelector(apis.LabelInstanceType, "t3.large"), extended("vpc.amazonaws.com/pod-eni", "1"))
		expectNotScheduled(t, w.solve(p), p)
	}},
	conformanceCase{Name: "private-ipv4-windows", Run: func(t *T) {
		w := awsWorld(t, awsNodeClass("windows2022@latest", nil), instancetypes.AWSOptions{})
		anyLaunch(t, w, unschedPod("p", "", nodeSelector(apis.LabelOS, "windows"), extended("vpc.amazonaws.com/PrivateIPv4Address", "1")),
			func(it *instancetypes.InstanceType) bool {
				return it.Capacity.Get("vpc.amazonaws.com/PrivateIPv4Address") > 0
			})
	}},
	conformanceCase{Name: "flex", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		anyLaunch(t, w, unschedPod("p", "", nodeSelector(apis.LabelInstanceCapabilityFlex, "true")), func(it *instancetypes.InstanceType) bool {
			return it.Labels()[apis.LabelInstanceCapabilityFlex] == "true" && strings.Contains(it.Name, "flex")
		})
	}},
	conformanceCase{Name: "flex-disallowed", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{}, withRequirement(apis.LabelInstanceCapabilityFlex, corev1.NodeSelectorOpNotIn, "true"))
		p := unschedPod("p", "", nodeSelector(apis.LabelInstanceCapabilityFlex, "true"))
		expectNotScheduled(t, w.solve(p), p)
	}},
	conformanceCase{Name: "non-flex", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		anyLaunch(t, w, unschedPod("p", "", nodeSelector(apis.LabelInstanceCapabilityFlex, "false")), func(it *instancetypes.InstanceType) bool {
			return it.Labels()[apis.LabelInstanceCapabilityFlex] == "false" && !strings.Contains(it.Name, "flex")
		})
	}},
	conformanceCase{Name: "metal", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{}, withRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpExists))
		anyLaunch(t, w, unschedPod("p", "1", nodeSelector(apis.LabelInstanceSize, "metal")), func(it *instancetypes.InstanceType) bool {
			return it.Labels()[apis.LabelInstanceSize] == "metal"
		})
	}},
	conformanceCase{Name: "nvidia-gpu", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		gpu := func(name, n string) *corev1.Pod {
			return unschedPod(name, "", extended("nvidia.com/gpu", n), limits("nvidia.com/gpu", n))
		}
		launchedOn(t, w, "p5.48xlarge", 2, gpu("a", "5"), gpu("b", "2"), gpu("c", "5"))
	}},
	conformanceCase{Name: "neuron", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		neuron := func(name, n string) *corev1.Pod {
			return unschedPod(name, "", extended("aws.amazon.com/neuron", n), limits("aws.amazon.com/neuron", n))
		}
		launchedOn(t, w, "inf2.24xlarge", 2, neuron("a", "2"), neuron("b", "2"), neuron("c", "4"))
	}},
	conformanceCase{Name: "neuron-trn1", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{}, onlyRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "trn1.2xlarge"))
		neuron := func(name string) *corev1.Pod {
			return unschedPod(name, "", extended("aws.amazon.com/neuron", "1"), limits("aws.amazon.com/neuron", "1"))
		}
		launchedOn(t, w, "trn1.2xlarge", 1, neuron("a"))
	}},
	conformanceCase{Name: "neuroncore", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{}, onlyRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "inf2.xlarge"))
		launchedOn(t, w, "inf2.xlarge", 1, unschedPod("p", "", extended("aws.amazon.com/neuroncore", "2"), limits("aws.amazon.com/neuroncore", "2")))
	}},
	conformanceCase{Name: "ephemeral-beyond-root-volume", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		p := unschedPod("p", "", requests("ephemeral-storage", "5000Gi"))
		expectNotScheduled(t, w.solve(p), p)
	}},
	conformanceCase{Name: "ephemeral-instance-store", Run: func(t *T) {
		nc := awsNodeClass("al2023@latest", nil)
		raid := apis.InstanceStorePolicyRAID0
		nc.Spec.InstanceStorePolicy = &raid
		w := awsWorld(t, nc, instancetypes.AWSOptions{})
		p := unschedPod("p", "", requests("ephemeral-storage", "5000Gi"))
		launchedOn(t, w, "m6idn.32xlarge", 1, p)
		it, _ := w.catalog.Get("m6idn.32xlarge")
		equalQuantity(t, "7600G", it.Capacity.Get(corev1.ResourceEphemeralStorage), "ephemeral storage")
	}},
	conformanceCase{Name: "ice-other-type", Run: func(t *T) {
		// Two Neuron pods would share an inf2.24xlarge; with it out of
		// capacity in their zone, they launch on another Inferentia type.
		neuron := func(name string) *corev1.Pod {
			return unschedPod(name, "", nodeSelector(apis.LabelTopologyZone, "us-east-1a"),
				extended("aws.amazon.com/neuron", "1"), limits("aws.amazon.com/neuron", "1"))
		}
		a, b := neuron("a"), neuron("b")
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		require.Equal(t, "inf2.24xlarge", claimOf(t, w.solve(a, b), a).InstanceType)
		w = iceWorld(t, func(u *pricing.UnavailableOfferings) {
			u.MarkUnavailable(apis.CapacityTypeOnDemand, "inf2.24xlarge", "us-east-1a", now)
		})
		res := w.solve(a, b)
		for _, p := range []*corev1.Pod{a, b} {
			it, _ := w.catalog.Get(claimOf(t, res, p).InstanceType)
			require.NotEqual(t, "inf2.24xlarge", it.Name)
			require.Equal(t, "inferentia2", it.Labels()[apis.LabelInstanceAcceleratorName])
		}
	}},
	conformanceCase{Name: "ice-other-zone", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		p := unschedPod("p", "1", nodeSelector(apis.LabelInstanceType, "m5.xlarge"))
		first := claimOf(t, w.solve(p), p)
		w = iceWorld(t, func(u *pricing.UnavailableOfferings) {
			u.MarkUnavailable(apis.CapacityTypeOnDemand, "m5.xlarge", first.Zone, now)
		})
		second := claimOf(t, w.solve(p), p)
		require.Equal(t, "m5.xlarge", second.InstanceType)
		require.NotEqual(t, first.Zone, second.Zone)
	}},
	conformanceCase{Name: "ice-smaller-types", Run: func(t *T) {
		// Two 1-cpu pods need an m5.xlarge together; with it out of
		// capacity in their zone, each gets an m5.large.
		w := iceWorld(t, func(u *pricing.UnavailableOfferings) {
			u.MarkUnavailable(apis.CapacityTypeOnDemand, "m5.xlarge", "us-east-1a", now)
		}, withRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "m5.large", "m5.xlarge"))
		zonal := func(name string) *corev1.Pod {
			return unschedPod(name, "1", nodeSelector(apis.LabelTopologyZone, "us-east-1a"))
		}
		launchedOn(t, w, "m5.large", 2, zonal("a"), zonal("b"))
	}},
	conformanceCase{Name: "ice-expires", Run: func(t *T) {
		u := &pricing.UnavailableOfferings{TTL: 3 * time.Minute}
		for _, z := range []string{"us-east-1a", "us-east-1b", "us-east-1c"} {
			u.MarkUnavailable(apis.CapacityTypeOnDemand, "m5.xlarge", z, now)
		}
		p := unschedPod("p", "1", nodeSelector(apis.LabelInstanceType, "m5.xlarge"))
		during := awsWorld(t, nil, instancetypes.AWSOptions{Unavailable: u, Now: now.Add(time.Minute)})
		expectNotScheduled(t, during.solve(p), p)
		after := awsWorld(t, nil, instancetypes.AWSOptions{Unavailable: u, Now: now.Add(4 * time.Minute)})
		require.Equal(t, "m5.xlarge", claimOf(t, after.solve(p), p).InstanceType)
	}},
	conformanceCase{Name: "ice-zonal-pod", Run: func(t *T) {
		w := iceWorld(t, func(u *pricing.UnavailableOfferings) {
			u.MarkUnavailable(apis.CapacityTypeOnDemand, "m5.xlarge", "us-east-1a", now)
		})
		p := unschedPod("p", "1", nodeSelector(apis.LabelInstanceType, "m5.xlarge"),
			nodeRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "us-east-1a", "us-east-1b")))
		c := claimOf(t, w.solve(p), p)
		require.Equal(t, "us-east-1b", c.Zone)
	}},
	conformanceCase{Name: "ice-spot-falls-back", Run: func(t *T) {
		w := iceWorld(t, func(u *pricing.UnavailableOfferings) {
			u.MarkCapacityTypeUnavailable(apis.CapacityTypeSpot, now)
		}, onlyRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot, apis.CapacityTypeOnDemand))
		p := unschedPod("p", "1")
		require.Equal(t, apis.CapacityTypeOnDemand, claimOf(t, w.solve(p), p).CapacityType)
	}},
	conformanceCase{Name: "ice-types-still-listed", Run: func(t *T) {
		u := &pricing.UnavailableOfferings{}
		u.MarkCapacityTypeUnavailable(apis.CapacityTypeOnDemand, now)
		u.MarkCapacityTypeUnavailable(apis.CapacityTypeSpot, now)
		c := awsCatalog(t, awsNodeClass("al2023@latest", nil), instancetypes.AWSOptions{Unavailable: u, Now: now})
		require.Len(t, c, len(awsSuiteTypes))
		for _, it := range c {
			require.NotEmpty(t, it.Offerings, it.Name)
			for _, o := range it.Offerings {
				require.False(t, o.Available, "%s %+v", it.Name, o)
			}
		}
	}},
	conformanceCase{Name: "ice-offering", Run: iceCatalogCase(func(u *pricing.UnavailableOfferings) {
		u.MarkUnavailable(apis.CapacityTypeOnDemand, "m5.xlarge", "us-east-1a", now)
	}, func(name string, o instancetypes.Offering) bool {
		return name == "m5.xlarge" && o.CapacityType == apis.CapacityTypeOnDemand && o.Zone == "us-east-1a"
	})},
	conformanceCase{Name: "ice-capacity-type", Run: iceCatalogCase(func(u *pricing.UnavailableOfferings) {
		u.MarkCapacityTypeUnavailable(apis.CapacityTypeSpot, now)
	}, func(_ string, o instancetypes.Offering) bool { return o.CapacityType == apis.CapacityTypeSpot })},
	conformanceCase{Name: "ice-zone", Run: iceCatalogCase(func(u *pricing.UnavailableOfferings) {
		u.MarkZoneUnavailable("us-east-1b", now)
	}, func(_ string, o instancetypes.Offering) bool { return o.Zone == "us-east-1b" })},
	conformanceCase{Name: "on-demand-by-default", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		p := unschedPod("p", "")
		require.Equal(t, apis.CapacityTypeOnDemand, claimOf(t, w.solve(p), p).CapacityType)
	}},
	conformanceCase{Name: "spot-when-allowed", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{}, onlyRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot, apis.CapacityTypeOnDemand))
		p := unschedPod("p", "1")
		require.Equal(t, apis.CapacityTypeSpot, claimOf(t, w.solve(p), p).CapacityType)
	}},
	conformanceCase{Name: "spot-not-in-zone", Run: func(t *T) {
		w := iceWorld(t, func(u *pricing.UnavailableOfferings) {
			for _, it := range awsSuiteTypes {
				u.MarkUnavailable(apis.CapacityTypeSpot, it, "us-east-1a", now)
			}
		}, onlyRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot))
		p := unschedPod("p", "1", nodeSelector(apis.LabelTopologyZone, "us-east-1a"))
		expectNotScheduled(t, w.solve(p), p)
	}},
	conformanceCase{Name: "spot-in-zone", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{}, onlyRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot))
		p := unschedPod("p", "1", nodeSelector(apis.LabelTopologyZone, "us-east-1a"))
		c := claimOf(t, w.solve(p), p)
		require.Equal(t, apis.CapacityTypeSpot, c.CapacityType)
		require.Equal(t, "us-east-1a", c.Zone)
	}},
)

// iceCatalogCase marks offerings and checks that exactly those for which
// hit holds are unavailable.
func iceCatalogCase(mark func(u *pricing.UnavailableOfferings), hit func(instanceType string, o instancetypes.Offering) bool) func(t *T) {
	return func(t *T) {
		u := &pricing.UnavailableOfferings{}
		mark(u)
		for _, it := range awsCatalog(t, awsNodeClass("al2023@latest", nil), instancetypes.AWSOptions{Unavailable: u, Now: now}) {
			for _, o := range it.Offerings {
				require.Equal(t, !hit(it.Name, o), o.Available, "%s %+v", it.Name, o)
			}
		}
	}
}

// ebsDefaultCase checks that a node launched with a block device mapping
// that has no volumeSize gets the default 20Gi of ephemeral storage.
func ebsDefaultCase(alias, family, device string) func(t *T) {
	return func(t *T) {
		nc := awsNodeClass(alias, nil)
		if family != "" {
			nc.Spec.AMIFamily = &family
			nc.Spec.AMISelectorTerms = []apis.AMISelectorTerm{{Tags: map[string]string{"*": "*"}}}
		}
		snapshot, rate := "snap-xxxxxxxx", int32(100)
		nc.Spec.BlockDeviceMappings = []*apis.BlockDeviceMapping{{DeviceName: &device,
			EBS: &apis.BlockDevice{SnapshotID: &snapshot, VolumeInitializationRate: &rate}}}
		w := awsWorld(t, nc, instancetypes.AWSOptions{})
		p := unschedPod("p", "")
		c := claimOf(t, w.solve(p), p)
		it, _ := w.catalog.Get(c.InstanceType)
		equalQuantity(t, "20Gi", it.Capacity.Get(corev1.ResourceEphemeralStorage), c.InstanceType+" ephemeral storage")
	}
}

var _ = register("aws-ephemeral",
	conformanceCase{Name: "ebs-default-custom", Run: ebsDefaultCase("", apis.AMIFamilyCustom, "/dev/xvda")},
	conformanceCase{Name: "ebs-default-al2", Run: ebsDefaultCase("al2@latest", "", "/dev/xvda")},
	conformanceCase{Name: "ebs-default-al2023", Run: ebsDefaultCase("al2023@latest", "", "/dev/xvda")},
	conformanceCase{Name: "ebs-default-bottlerocket", Run: ebsDefaultCase("bottlerocket@latest", "", "/dev/xvdb")},
)
