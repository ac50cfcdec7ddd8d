output "run_id" {
  description = "The run id the box was launched for."
  value       = var.run_id
}

output "ami_id" {
  description = "AMI the box booted; also recorded in the run manifest."
  value       = local.ami_id
}

output "instance_ids" {
  description = "The instance of this run (a list, so the wait and cleanup steps read one shape)."
  value       = [aws_instance.box.id]
}

output "results_prefix" {
  description = "Where the box uploads: s3://<bucket>/boxes/<box-role-id>:<instance-id>/ (run/ is data/runs/<run-id>/, logs/, done.json)."
  value       = "s3://${var.results_bucket}/boxes/${var.box_role_id}:${aws_instance.box.id}/"
}

output "expires_at" {
  description = "The expiry tag: after it the reaper terminates the box whatever its state."
  value       = var.expires_at
}
