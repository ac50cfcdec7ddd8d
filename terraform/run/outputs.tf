output "run_id" {
  description = "The run id the box(es) were launched for."
  value       = var.run_id
}

output "ami_id" {
  description = "AMI the box(es) booted; also recorded in the run manifest."
  value       = local.ami_id
}

output "instance_ids" {
  description = "Every instance of this run (database box first)."
  value       = concat([aws_instance.box.id], aws_instance.client[*].id)
}

output "results_prefix" {
  description = "Where the box that produces data/runs/<run-id>/ uploads: s3://<bucket>/boxes/<box-role-id>:<instance-id>/ (the client's in split topology)."
  value       = "s3://${var.results_bucket}/boxes/${var.box_role_id}:${local.split ? aws_instance.client[0].id : aws_instance.box.id}/"
}

output "log_prefixes" {
  description = "Upload prefix of every box of the run (each uploads its own logs and done marker)."
  value       = [for id in concat([aws_instance.box.id], aws_instance.client[*].id) : "s3://${var.results_bucket}/boxes/${var.box_role_id}:${id}/"]
}

output "topology" {
  description = "single or split, as recorded in the manifest."
  value       = var.topology
}
