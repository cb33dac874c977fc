# Azure nodes for a gpu_cluster_spec. The instance type is the VM size. The
# resource is commented out so the example plans without the azurerm
# provider; uncomment it and add azurerm, a resource group and a NIC to use it.
#
# resource "azurerm_linux_virtual_machine" "node" {
#   count               = var.node_count
#   name                = "${var.name}-${count.index}"
#   location            = var.region
#   size                = var.instance_type   # e.g. "Standard_ND96isr_H100_v5"
#   resource_group_name = var.resource_group_name
#   network_interface_ids = [var.nic_ids[count.index]]
#   admin_username      = "azureuser"
#   tags                = var.labels
#   ...
# }

output "vm" {
  description = "Arguments of azurerm_linux_virtual_machine for these nodes."
  value = {
    resource = "azurerm_linux_virtual_machine"
    provider = "hashicorp/azurerm"
    count    = var.node_count
    size     = var.instance_type
    location = var.region
    tags     = var.labels
  }
}
