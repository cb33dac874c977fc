# The instance type each cloud sells for 8 x H100 in one node. When a cloud
# sells several, the one with the lowest on-demand price wins (ties by name),
# the same choice gpu_cluster_spec makes for one on_demand node without a region.
output "h100_8x" {
  value = {
    aws   = provider::gpu::instance_type("aws", "H100", 8)   # "p5.48xlarge"
    gcp   = provider::gpu::instance_type("gcp", "H100", 8)   # an a3 machine type
    azure = provider::gpu::instance_type("azure", "H100", 8) # an ND H100 v5 size
  }
}

# Feed it to a cloud's own resource, for example:
#
#   resource "aws_instance" "node" {
#     ami           = var.ami_id
#     instance_type = provider::gpu::instance_type("aws", var.accelerator, var.gpus_per_node)
#   }
#
# An accelerator the cloud does not sell fails the plan naming the clouds that
# do; a GPU count it does not sell fails naming the sizes it sells.
