//! The controllers, each written the way kube-controller-manager writes it.
