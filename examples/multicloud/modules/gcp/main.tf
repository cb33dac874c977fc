# GCP nodes for a gpu_cluster_spec. On GCP the GPU machine type is the
# instance type: a3/a2/g2 machine types have their GPUs attached, so no
# guest_accelerator block is needed. The resource is commented out so the
# example plans without the Google provider; uncomment it and add the google
# provider to use it. Machine types are zonal: pick a zone of var.region.
#
# resource "google_compute_instance" "node" {
#   count        = var.node_count
#   name         = "${var.name}-${count.index}"
#   machine_type = var.instance_type   # e.g. "a3-highgpu-8g"
#   zone         = "${var.region}-a"
#   labels       = var.labels
#   scheduling {
#     on_host_maintenance = "TERMINATE"  # required for GPU machines
#   }
#   boot_disk {
#     initialize_params { image = "deeplearning-platform-release/common-cu124" }
#   }
#   network_interface { network = "default" }
# }

output "vm" {
  description = "Arguments of google_compute_instance for these nodes."
  value = {
    resource     = "google_compute_instance"
    provider     = "hashicorp/google"
    count        = var.node_count
    machine_type = var.instance_type
    zone         = "${var.region}-a"
    labels       = var.labels
  }
}
