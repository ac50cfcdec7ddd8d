output "github_variables" {
  description = "Repository variables (Settings → Secrets and variables → Actions → Variables) the workflows read. None of them is a secret."
  value = {
    SAMEBOX_AWS_REGION      = var.region
    SAMEBOX_BENCH_ROLE_ARN  = aws_iam_role.bench.arn
    SAMEBOX_REAPER_ROLE_ARN = aws_iam_role.reaper.arn
    SAMEBOX_RESULTS_BUCKET  = aws_s3_bucket.results.bucket
    SAMEBOX_STATE_BUCKET    = aws_s3_bucket.state.bucket
    SAMEBOX_BOX_PROFILE     = aws_iam_instance_profile.box.name
    SAMEBOX_BOX_ROLE_ID     = aws_iam_role.box.unique_id
    SAMEBOX_BOX_SG_ID       = aws_security_group.box.id
    SAMEBOX_SUBNET_ID       = var.subnet_id == "" ? "" : data.aws_subnet.boxes[0].id
    SAMEBOX_EXPIRY_ROLE_ARN = aws_iam_role.expiry.arn
  }
}

output "results_bucket" {
  description = "Bucket the boxes upload to, under boxes/<box-role-id>:<instance-id>/."
  value       = aws_s3_bucket.results.bucket
}

output "state_bucket" {
  description = "Bucket holding the per-run Terraform state (key runs/<run-id>.tfstate, lock file beside it)."
  value       = aws_s3_bucket.state.bucket
}

output "box_instance_profile" {
  description = "Instance profile every box is launched with."
  value       = aws_iam_instance_profile.box.name
}

output "bench_role_arn" {
  description = "Role the bench workflow assumes through GitHub OIDC."
  value       = aws_iam_role.bench.arn
}

output "reaper_role_arn" {
  description = "Role the reaper workflow assumes through GitHub OIDC."
  value       = aws_iam_role.reaper.arn
}
