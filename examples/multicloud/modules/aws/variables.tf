variable "name" {
  description = "Cluster name, used as a prefix for node names."
  type        = string
}

variable "instance_type" {
  description = "The instance type rendered by gpu_cluster_spec for this cloud."
  type        = string
}

variable "region" {
  description = "The region rendered by gpu_cluster_spec."
  type        = string
}

variable "node_count" {
  description = "Number of nodes."
  type        = number
}

variable "labels" {
  description = "Labels of the cluster spec, applied as tags/labels."
  type        = map(string)
  default     = {}
}
