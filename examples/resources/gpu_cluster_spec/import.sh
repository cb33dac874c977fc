# A gpu_cluster_spec is imported from its neutral spec JSON (the value of
# spec_json, schema: docs/cluster-spec.schema.json). The import ID takes one
# of three forms:
#
#   '<spec_json>'                  placed by the document's annotations
#                                  "gpuplan.io/cloud" and "gpuplan.io/region"
#                                  (spec_json always carries them)
#   '<cloud>:<spec_json>'          on that cloud, in its cheapest region
#   '<cloud>/<region>:<spec_json>' on that cloud, in that region
#
# The document is validated strictly: unknown fields, a wrong apiVersion or
# kind and missing or invalid fields are errors naming the field.

# Re-import a spec exported from another workspace, where an output
# `spec_json = gpu_cluster_spec.train.spec_json` holds it (bash):
terraform import gpu_cluster_spec.train "$(terraform output -raw spec_json)"

# Place a hand-written spec on GCP, cheapest region:
terraform import gpu_cluster_spec.train 'gcp:{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"llm-train"},"spec":{"accelerator":"H100","gpusPerNode":8,"nodes":4,"pricingModel":"on_demand"}}'

# ... or on Azure in a given region:
terraform import gpu_cluster_spec.train 'azure/eastus:{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"llm-train"},"spec":{"accelerator":"H100","gpusPerNode":8,"nodes":4,"pricingModel":"on_demand"}}'
