package snapshot

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// defaultClassAnnotation marks the StorageClass the API server gives claims
// that name none.
const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// volumeObjects copies the Set's claims, volumes and storage classes for
// the scheduler, and adds what the cluster's controllers would create: the
// claims of StatefulSet pods' volumeClaimTemplates that were not given. A
// claim without a storage class gets the default class, as admission
// gives it.
func (b *builder) volumeObjects() {
	s := b.snap
	for _, c := range b.in.PersistentVolumeClaims {
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, c.DeepCopy())
	}
	for _, pv := range b.in.PersistentVolumes {
		s.PersistentVolumes = append(s.PersistentVolumes, pv.DeepCopy())
	}
	for _, sc := range b.in.StorageClasses {
		s.StorageClasses = append(s.StorageClasses, sc.DeepCopy())
	}
	for _, ss := range b.in.StatefulSets {
		for _, p := range s.Pending {
			if ownerName(p, "StatefulSet") != ss.Name || p.Namespace != namespaceOrDefault(ss.Namespace) {
				continue
			}
			for _, t := range ss.Spec.VolumeClaimTemplates {
				name := t.Name + "-" + p.Name
				if !hasClaim(s.PersistentVolumeClaims, p.Namespace, name) {
					c := &corev1.PersistentVolumeClaim{Spec: *t.Spec.DeepCopy()}
					c.Name, c.Namespace = name, p.Namespace
					s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, c)
				}
			}
		}
	}
	if def := defaultClass(s.StorageClasses); def != "" {
		for _, c := range s.PersistentVolumeClaims {
			if c.Spec.StorageClassName == nil && c.Spec.VolumeName == "" {
				c.Spec.StorageClassName = &def
			}
		}
	}
}

func hasClaim(claims []*corev1.PersistentVolumeClaim, namespace, name string) bool {
	return slices.ContainsFunc(claims, func(c *corev1.PersistentVolumeClaim) bool {
		return c.Name == name && namespaceOrDefault(c.Namespace) == namespace
	})
}

// defaultClass is the name of the default StorageClass: when several claim
// to be, the newest, as Kubernetes picks since 1.26, then the first by name.
func defaultClass(classes []*storagev1.StorageClass) string {
	var best *storagev1.StorageClass
	for _, sc := range classes {
		if sc.Annotations[defaultClassAnnotation] != "true" {
			continue
		}
		if best == nil || sc.CreationTimestamp.After(best.CreationTimestamp.Time) ||
			sc.CreationTimestamp.Equal(&best.CreationTimestamp) && sc.Name < best.Name {
			best = sc
		}
	}
	if best == nil {
		return ""
	}
	return best.Name
}

func namespaceOrDefault(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}
