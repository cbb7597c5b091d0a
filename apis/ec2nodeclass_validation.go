package apis

import (
	"regexp"
	"slices"
	"strings"
)

const (
	maxSelectorTerms       = 30
	maxSelectorTags        = 20
	maxBlockDeviceMappings = 50
	maxAliasLength         = 30
)

var (
	// The EC2NodeClass CRD's ID patterns. The subnet, security group and
	// AMI patterns are not anchored in the CRD, so they match anywhere.
	subnetIDPattern              = regexp.MustCompile(`subnet-[0-9a-z]+`)
	securityGroupIDPattern       = regexp.MustCompile(`sg-[0-9a-z]+`)
	amiIDPattern                 = regexp.MustCompile(`ami-[0-9a-z]+`)
	capacityReservationIDPattern = regexp.MustCompile(`^cr-[0-9a-z]+$`)
	ownerIDPattern               = regexp.MustCompile(`^[0-9]{12}$`)
	aliasPattern                 = regexp.MustCompile(`^[a-zA-Z0-9]+@.+$`)
	// volumeSizePattern is the CRD's pattern for ebs.volumeSize: 1Gi to
	// 59000Gi, 1G to 64000G, 1Ti to 58Ti or 1T to 64T.
	volumeSizePattern = regexp.MustCompile(`^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$`)

	amiFamilies           = []string{AMIFamilyAL2, AMIFamilyAL2023, AMIFamilyBottlerocket, AMIFamilyCustom, AMIFamilyWindows2019, AMIFamilyWindows2022, AMIFamilyWindows2025}
	volumeTypes           = []string{"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}
	instanceMatchCriteria = []string{"open", "targeted"}
	// restrictedTagKeys are EC2 tags Karpenter or EKS set on instances.
	restrictedTagKeys = []string{"eks:eks-cluster-name", LabelNodePool, Group + "/nodeclaim", LabelNodeClass}
)

// SetDefaults fills in the fields the EC2NodeClass CRD defaults: the
// instance metadata options (endpoint enabled, IPv6 endpoint disabled, hop
// limit 1, tokens required), field by field.
func (in *EC2NodeClass) SetDefaults() {
	if in.Spec.MetadataOptions == nil {
		in.Spec.MetadataOptions = &MetadataOptions{}
	}
	m := in.Spec.MetadataOptions
	setDefault(&m.HTTPEndpoint, "enabled")
	setDefault(&m.HTTPProtocolIPv6, "disabled")
	setDefault(&m.HTTPPutResponseHopLimit, 1)
	setDefault(&m.HTTPTokens, "required")
}

func setDefault[T any](p **T, v T) {
	if *p == nil {
		*p = &v
	}
}

// Validate checks the EC2NodeClass against the rules of the
// karpenter.k8s.aws/v1 CRD (OpenAPI schema and CEL) and of the AWS
// provider's validation. It returns nil or a FieldErrors with every problem
// found. Call SetDefaults first, as the API server defaults before it
// validates.
func (in *EC2NodeClass) Validate() error {
	e := &errs{}
	validateName(e, in.Name)
	s := &in.Spec
	validateSubnetTerms(e, "spec.subnetSelectorTerms", s.SubnetSelectorTerms)
	validateSecurityGroupTerms(e, "spec.securityGroupSelectorTerms", s.SecurityGroupSelectorTerms)
	validateCapacityReservationTerms(e, "spec.capacityReservationSelectorTerms", s.CapacityReservationSelectorTerms)
	validateAMISelectorTerms(e, "spec.amiSelectorTerms", s.AMISelectorTerms)
	in.validateAMIFamily(e)
	validateIdentity(e, s)
	validateEC2Tags(e, "spec.tags", s.Tags)
	validateKubelet(e, "spec.kubelet", s.Kubelet)
	validateBlockDeviceMappings(e, "spec.blockDeviceMappings", s.BlockDeviceMappings)
	if p := s.InstanceStorePolicy; p != nil && *p != InstanceStorePolicyRAID0 {
		e.add("spec.instanceStorePolicy", "%q is not an instance store policy (use RAID0, or leave it out)", *p)
	}
	validateMetadataOptions(e, "spec.metadataOptions", s.MetadataOptions)
	validateLaunchSettings(e, s)
	validateResolvedSubnets(e, "status.subnets", in.Status.Subnets)
	validateResolvedReservations(e, "status.capacityReservations", in.Status.CapacityReservations)
	return e.list.asError()
}

// validateResolvedSubnets checks the subnets a status gives: karpsim makes
// offerings in their zones, so each needs one, once per ID.
func validateResolvedSubnets(e *errs, path string, subnets []Subnet) {
	seen := map[string]bool{}
	for i, s := range subnets {
		p := index(path, i)
		if s.ID == "" {
			e.add(child(p, "id"), "required, e.g. subnet-0123456789abcdef0")
		} else if seen[s.ID] {
			e.add(child(p, "id"), "%q is listed twice", s.ID)
		}
		seen[s.ID] = true
		validateID(e, child(p, "id"), s.ID, subnetIDPattern, "subnet-0123456789abcdef0")
		if s.Zone == "" {
			e.add(child(p, "zone"), "required: the subnet's availability zone, e.g. us-east-1a")
		}
	}
}

// validateResolvedReservations checks the capacity reservations a status
// gives against the CRD's status schema: karpsim makes reserved offerings
// of them.
func validateResolvedReservations(e *errs, path string, reservations []CapacityReservation) {
	seen := map[string]bool{}
	for i, r := range reservations {
		p := index(path, i)
		switch {
		case r.ID == "":
			e.add(child(p, "id"), "required, e.g. cr-0123456789abcdef0")
		case seen[r.ID]:
			e.add(child(p, "id"), "%q is listed twice", r.ID)
		}
		seen[r.ID] = true
		validateID(e, child(p, "id"), r.ID, capacityReservationIDPattern, "cr-0123456789abcdef0")
		if r.AvailabilityZone == "" {
			e.add(child(p, "availabilityZone"), "required: the zone the reservation is in")
		}
		if r.InstanceType == "" {
			e.add(child(p, "instanceType"), "required: the instance type the reservation is for")
		}
		if t := r.ReservationType; t != "" && t != CapacityReservationTypeDefault && t != CapacityReservationTypeCapacityBlock {
			e.add(child(p, "reservationType"), "%q is not allowed (use default or capacity-block)", t)
		}
		if st := r.State; st != "" && st != CapacityReservationStateActive && st != CapacityReservationStateExpiring {
			e.add(child(p, "state"), "%q is not allowed (use active or expiring)", st)
		}
		if c := r.InstanceMatchCriteria; c != "" && !slices.Contains(instanceMatchCriteria, c) {
			e.add(child(p, "instanceMatchCriteria"), "%q is not allowed (use open or targeted)", c)
		}
	}
}

func validateTermCount(e *errs, path string, n int, required bool, example string) {
	if required && n == 0 {
		e.add(path, "required: at least one term, e.g. %s", example)
	}
	if n > maxSelectorTerms {
		e.add(path, "%d terms, at most %d are allowed", n, maxSelectorTerms)
	}
}

func validateSubnetTerms(e *errs, path string, terms []SubnetSelectorTerm) {
	validateTermCount(e, path, len(terms), true, "{tags: {karpenter.sh/discovery: my-cluster}}")
	for i, t := range terms {
		p := index(path, i)
		validateSelectorTags(e, child(p, "tags"), t.Tags)
		switch {
		case len(t.Tags) == 0 && t.ID == "":
			e.add(p, "set tags or id")
		case t.ID != "" && len(t.Tags) > 0:
			e.add(p, "id selects one subnet and may not be combined with tags; use a separate term")
		}
		validateID(e, child(p, "id"), t.ID, subnetIDPattern, "subnet-0123456789abcdef0")
	}
}

func validateSecurityGroupTerms(e *errs, path string, terms []SecurityGroupSelectorTerm) {
	validateTermCount(e, path, len(terms), true, "{tags: {karpenter.sh/discovery: my-cluster}}")
	for i, t := range terms {
		p := index(path, i)
		validateSelectorTags(e, child(p, "tags"), t.Tags)
		switch {
		case len(t.Tags) == 0 && t.ID == "" && t.Name == "":
			e.add(p, "set tags, id or name")
		case t.ID != "" && (len(t.Tags) > 0 || t.Name != ""):
			e.add(p, "id selects one security group and may not be combined with tags or name; use a separate term")
		case t.Name != "" && len(t.Tags) > 0:
			e.add(p, "name may not be combined with tags or id; use a separate term")
		}
		validateID(e, child(p, "id"), t.ID, securityGroupIDPattern, "sg-0123456789abcdef0")
	}
}

func validateCapacityReservationTerms(e *errs, path string, terms []CapacityReservationSelectorTerm) {
	validateTermCount(e, path, len(terms), false, "")
	for i, t := range terms {
		p := index(path, i)
		validateSelectorTags(e, child(p, "tags"), t.Tags)
		switch {
		case len(t.Tags) == 0 && t.ID == "" && t.InstanceMatchCriteria == "":
			e.add(p, "set tags, id or instanceMatchCriteria")
		case t.ID != "" && (len(t.Tags) > 0 || t.OwnerID != "" || t.InstanceMatchCriteria != ""):
			e.add(p, "id selects one capacity reservation and may not be combined with tags, ownerID or instanceMatchCriteria")
		}
		validateID(e, child(p, "id"), t.ID, capacityReservationIDPattern, "cr-0123456789abcdef0")
		validateID(e, child(p, "ownerID"), t.OwnerID, ownerIDPattern, "a 12-digit AWS account ID")
		if c := t.InstanceMatchCriteria; c != "" && !slices.Contains(instanceMatchCriteria, c) {
			e.add(child(p, "instanceMatchCriteria"), "%q is not allowed (use open or targeted)", c)
		}
	}
}

func validateID(e *errs, path, id string, pattern *regexp.Regexp, example string) {
	if id != "" && !pattern.MatchString(id) {
		e.add(path, "%q is not a valid ID (expected something like %s)", id, example)
	}
}

func validateSelectorTags(e *errs, path string, tags map[string]string) {
	if len(tags) > maxSelectorTags {
		e.add(path, "%d tags, at most %d are allowed", len(tags), maxSelectorTags)
	}
	for _, k := range sortedKeys(tags) {
		switch {
		case k == "":
			e.add(path, "empty tag keys are not allowed")
		case tags[k] == "":
			e.add(key(path, k), "empty tag values are not allowed (use \"*\" to match any value)")
		}
	}
}

func validateAMISelectorTerms(e *errs, path string, terms []AMISelectorTerm) {
	validateTermCount(e, path, len(terms), true, "{alias: al2023@latest}")
	for i, t := range terms {
		p := index(path, i)
		validateSelectorTags(e, child(p, "tags"), t.Tags)
		others := len(t.Tags) > 0 || t.Name != "" || t.Owner != ""
		switch {
		case t.Alias == "" && t.ID == "" && t.SSMParameter == "" && len(t.Tags) == 0 && t.Name == "":
			e.add(p, "set one of alias, id, name, tags or ssmParameter")
		case t.ID != "" && (t.Alias != "" || others):
			e.add(p, "id selects one AMI and may not be combined with alias, tags, name or owner")
		case t.Alias != "" && others:
			e.add(p, "alias may not be combined with tags, name or owner; an alias stands alone")
		}
		validateID(e, child(p, "id"), t.ID, amiIDPattern, "ami-0123456789abcdef0")
		if t.Alias != "" {
			validateAlias(e, child(p, "alias"), t.Alias)
			if len(terms) > 1 {
				e.add(child(p, "alias"), "an alias term must be the only amiSelectorTerms entry, but there are %d", len(terms))
			}
		}
	}
}

// validateAlias checks "family@version" as the CRD's CEL rules do.
func validateAlias(e *errs, path, alias string) {
	if len(alias) > maxAliasLength {
		e.add(path, "%q is longer than %d characters", alias, maxAliasLength)
	}
	if !aliasPattern.MatchString(alias) {
		e.add(path, "%q is not of the form family@version, e.g. al2023@latest", alias)
		return
	}
	family, version, _ := strings.Cut(alias, "@")
	known := false
	for _, f := range aliasFamilies {
		known = known || strings.ToLower(f) == family
	}
	if !known {
		e.add(path, "%q names an unknown family %q (use al2, al2023, bottlerocket, windows2019, windows2022 or windows2025)", alias, family)
		return
	}
	if strings.HasPrefix(family, "windows") && version != AliasVersionLatest {
		e.add(path, "%q: Windows aliases only support the version latest", alias)
	}
}

// validateAMIFamily checks amiFamily against its enum and the alias term: an
// explicit family must match the alias or be Custom, and without an alias
// the family is required.
func (in *EC2NodeClass) validateAMIFamily(e *errs) {
	family := in.Spec.AMIFamily
	var alias string
	for _, t := range in.Spec.AMISelectorTerms {
		if t.Alias != "" {
			alias = t.Alias
			break
		}
	}
	if family == nil {
		if alias == "" {
			e.add("spec.amiFamily", "required when amiSelectorTerms has no alias (one of %s)", strings.Join(amiFamilies, ", "))
		}
		return
	}
	if !slices.Contains(amiFamilies, *family) {
		e.add("spec.amiFamily", "%q is not an AMI family (use %s)", *family, strings.Join(amiFamilies, ", "))
		return
	}
	aliasFamily, _, _ := strings.Cut(alias, "@")
	if alias != "" && *family != AMIFamilyCustom && strings.ToLower(*family) != aliasFamily {
		e.add("spec.amiFamily", "%q does not match the alias %q: leave amiFamily out, or set it to the alias's family or Custom", *family, alias)
	}
}

func validateIdentity(e *errs, s *EC2NodeClassSpec) {
	switch {
	case s.Role != "" && s.InstanceProfile != nil:
		e.add("spec", "role and instanceProfile are mutually exclusive: set exactly one")
	case s.Role == "" && s.InstanceProfile == nil:
		e.add("spec", "set exactly one of role or instanceProfile (neither is set)")
	}
	if s.InstanceProfile != nil && *s.InstanceProfile == "" {
		e.add("spec.instanceProfile", "must not be empty")
	}
}

func validateEC2Tags(e *errs, path string, tags map[string]string) {
	for _, k := range sortedKeys(tags) {
		switch {
		case k == "":
			e.add(path, "empty tag keys are not allowed")
		case strings.HasPrefix(k, "kubernetes.io/cluster"):
			e.add(key(path, k), "tag keys starting with kubernetes.io/cluster are restricted: Karpenter sets the cluster tag")
		case slices.Contains(restrictedTagKeys, k):
			e.add(key(path, k), "tag %q is restricted: Karpenter or EKS sets it", k)
		}
	}
}
