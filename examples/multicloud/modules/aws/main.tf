# AWS nodes for a gpu_cluster_spec. The `vm` output is the argument set of
# aws_instance; the resource itself is below, commented out so the example
# plans without the AWS provider. To use it, uncomment it, add the aws
# provider (region = var.region) and an AMI (for example a Deep Learning AMI).
#
# resource "aws_instance" "node" {
#   count         = var.node_count
#   ami           = var.ami_id
#   instance_type = var.instance_type   # e.g. "p5.48xlarge"
#   tags          = merge(var.labels, { Name = "${var.name}-${count.index}" })
# }

output "vm" {
  description = "Arguments of aws_instance for these nodes."
  value = {
    resource      = "aws_instance"
    provider      = "hashicorp/aws"
    count         = var.node_count
    instance_type = var.instance_type
    region        = var.region
    tags          = merge(var.labels, { Name = "${var.name}-<index>" })
  }
}
