locals {
  tags = {
    Project              = var.project
    "samebox:run-id"     = var.run_id
    "samebox:expires-at" = var.expires_at
    "samebox:studies"    = join("+", var.studies)
    # Every box of one dispatch (all its studies and shares): what cancel and collect select by.
    "samebox:dispatch" = replace(var.run_id, "/-${var.studies[0]}(-[0-9]+of[0-9]+)?$/", "")
  }
  ami_id = var.ami_id != "" ? var.ami_id : data.aws_ami.ubuntu[0].id

  # Everything the box script needs; rendered into cloud-init user data.
  box_env = {
    SAMEBOX_RUN_ID                  = var.run_id
    SAMEBOX_PROFILE                 = var.profile
    SAMEBOX_STUDIES                 = join(",", var.studies)
    SAMEBOX_SYSTEMS                 = join(",", var.systems)
    SAMEBOX_WORKLOADS               = join(",", var.workloads)
    SAMEBOX_VARIANTS                = join(",", var.variants)
    SAMEBOX_REPO_URL                = var.repository_url
    SAMEBOX_COMMIT                  = var.commit
    SAMEBOX_MAX_MINUTES             = tostring(var.max_minutes)
    SAMEBOX_UPLOAD_INTERVAL_SECONDS = tostring(var.upload_interval_seconds)
    SAMEBOX_RESULTS_BUCKET          = var.results_bucket
    SAMEBOX_CLOUD_PROVIDER          = "aws"
    SAMEBOX_CLOUD_REGION            = var.region
    SAMEBOX_CLOUD_INSTANCE_TYPE     = var.instance_type
    SAMEBOX_CLOUD_AMI_ID            = local.ami_id
    SAMEBOX_CLOUD_INSTANCE_COUNT    = "1"
  }

  # Rendered once: the instance gets it gzip+base64, and terraform/run/tests
  # assert on the plain text (timer first, entry script run as its own unit).
  user_data = templatefile("${path.module}/../box/user-data.sh.tftpl", {
    box_env    = local.box_env
    box_script = file("${path.module}/../box/run-on-box.sh")
  })
}

# Newest Canonical Ubuntu 24.04 LTS (noble) amd64 image on gp3; the id used is
# passed to the box (SAMEBOX_CLOUD_AMI_ID) and recorded in the run manifest.
data "aws_ami" "ubuntu" {
  count       = var.ami_id == "" ? 1 : 0
  most_recent = true
  owners      = ["099720109477"]

  filter {
    name   = "name"
    values = ["ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-amd64-server-*"]
  }

  filter {
    name   = "architecture"
    values = ["x86_64"]
  }

  filter {
    name   = "virtualization-type"
    values = ["hvm"]
  }
}

# One box per run. The bench workflow fans out: one run (one box, one state
# file) per study, so every study gets its own time limit from the estimate.
resource "aws_instance" "box" {
  #checkov:skip=CKV_AWS_88:The box needs outbound internet (apt, git, registries) and the default VPC has no NAT; its security group has no inbound rule, so the public address accepts nothing.
  ami                                  = local.ami_id
  instance_type                        = var.instance_type
  iam_instance_profile                 = var.box_instance_profile
  subnet_id                            = var.subnet_id != "" ? var.subnet_id : null
  vpc_security_group_ids               = [var.box_security_group_id]
  associate_public_ip_address          = true
  instance_initiated_shutdown_behavior = "terminate"
  ebs_optimized                        = true
  monitoring                           = true

  metadata_options {
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = 1
  }

  root_block_device {
    volume_type           = "gp3"
    volume_size           = var.root_volume_gb
    encrypted             = true
    delete_on_termination = true
  }

  volume_tags = local.tags

  # gzip keeps the embedded entry script well under EC2's 16 KiB user data limit.
  user_data_base64            = base64gzip(local.user_data)
  user_data_replace_on_change = true

  tags = merge(local.tags, { Name = "${var.project}-${var.run_id}" })
}

# The box's expiry on AWS's side: a one-time EventBridge Scheduler schedule terminates the instance at its
# expiry tag (launch + limit + 30 min), whether or not the box's own timer fired and whatever GitHub's cron
# and OIDC do. Closing the dispatch deletes it (dispatch.py close). Its group and role come from the bootstrap.
resource "aws_scheduler_schedule" "expiry" {
  #checkov:skip=CKV_AWS_297:The schedule's input is one instance id, encrypted at rest with an AWS-owned key; a customer-managed key adds cost and a key policy the expiry role would also need, protecting nothing secret.
  name                         = substr(var.run_id, 0, 64)
  group_name                   = var.expiry_schedule_group
  description                  = "samebox: terminate ${aws_instance.box.id} at its expiry"
  schedule_expression          = "at(${trimsuffix(var.expires_at, "Z")})"
  schedule_expression_timezone = "UTC"

  flexible_time_window {
    mode = "OFF"
  }

  target {
    arn      = "arn:aws:scheduler:::aws-sdk:ec2:terminateInstances"
    role_arn = var.expiry_role_arn
    input    = jsonencode({ InstanceIds = [aws_instance.box.id] })

    retry_policy {
      maximum_event_age_in_seconds = 3600
      maximum_retry_attempts       = 10
    }
  }
}
