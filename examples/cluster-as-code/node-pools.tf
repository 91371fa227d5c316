# A GKE node pool for batch jobs, adapted from the google provider's google_container_node_pool
# documentation (hashicorp/terraform-provider-google).
resource "google_container_node_pool" "batch" {
  name    = "batch"
  cluster = google_container_cluster.primary.id

  autoscaling {
    min_node_count = 1
    max_node_count = 5
  }

  node_config {
    machine_type = "e2-standard-8"
    labels = {
      "example.com/pool" = "batch"
    }
    taint {
      key    = "example.com/batch"
      value  = "true"
      effect = "NO_SCHEDULE"
    }
  }
}
