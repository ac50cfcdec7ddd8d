# terraform test, offline: the AWS provider is mocked (no credentials, no API
# calls), so these runs check what the module would ask AWS for. They assert
# the box's invariants and that bad inputs are rejected before any launch.
# Run: cd terraform/run && terraform init -backend=false -plugin-dir=... && terraform test

mock_provider "aws" {
  mock_data "aws_ami" {
    defaults = {
      id = "ami-0123456789abcdef0"
    }
  }
  mock_resource "aws_instance" {
    defaults = {
      id = "i-0123456789abcdef0"
    }
  }
}

variables {
  region                = "us-east-1"
  run_id                = "20300101T120000Z-full-c6a-4xlarge-oltp"
  expires_at            = "2030-01-01T17:30:00Z"
  studies               = ["oltp"]
  systems               = ["postgresql", "mariadb", "mysql"]
  repository_url        = "https://github.com/example/samebox.git"
  commit                = "0123456789abcdef0123456789abcdef01234567"
  max_minutes           = 120
  results_bucket        = "samebox-results-123456789012-us-east-1"
  box_instance_profile  = "samebox-box"
  box_role_id           = "AROAEXAMPLEROLEID1234"
  box_security_group_id = "sg-0123456789abcdef0"
  expiry_role_arn       = "arn:aws:iam::123456789012:role/samebox-box-expiry"
}

run "box_invariants" {
  command = apply

  assert {
    condition     = aws_instance.box.instance_type == "c6a.4xlarge"
    error_message = "the default instance type must be c6a.4xlarge (the seed's machine)"
  }
  assert {
    condition     = aws_instance.box.metadata_options[0].http_tokens == "required"
    error_message = "IMDSv2 must be required"
  }
  assert {
    condition     = aws_instance.box.metadata_options[0].http_put_response_hop_limit == 1
    error_message = "the metadata hop limit must be 1 (nothing forwarded may reach IMDS)"
  }
  assert {
    condition     = aws_instance.box.instance_initiated_shutdown_behavior == "terminate"
    error_message = "power-off must terminate the instance (it ends the bill)"
  }
  assert {
    condition     = aws_instance.box.root_block_device[0].encrypted == true && aws_instance.box.root_block_device[0].delete_on_termination == true
    error_message = "the root volume must be encrypted and deleted with the instance"
  }
  assert {
    condition     = aws_instance.box.vpc_security_group_ids == toset(["sg-0123456789abcdef0"])
    error_message = "the box gets exactly the bootstrap's egress-only group (no inbound rule anywhere)"
  }
  assert {
    condition     = aws_instance.box.tags["samebox:expires-at"] == "2030-01-01T17:30:00Z" && aws_instance.box.tags["Project"] == "samebox"
    error_message = "the reaper and the IAM launch policy key on the Project and samebox:expires-at tags"
  }
  assert {
    condition     = aws_instance.box.tags["samebox:run-id"] == var.run_id && aws_instance.box.volume_tags["samebox:expires-at"] == var.expires_at
    error_message = "instance and volume carry the run id and expiry"
  }
  assert {
    condition     = aws_instance.box.ami == "ami-0123456789abcdef0" && output.ami_id == "ami-0123456789abcdef0"
    error_message = "the box boots the looked-up Ubuntu image and reports it"
  }
  assert {
    condition     = output.results_prefix == "s3://samebox-results-123456789012-us-east-1/boxes/AROAEXAMPLEROLEID1234:i-0123456789abcdef0/"
    error_message = "the results prefix is the box role's aws:userid prefix"
  }
  assert {
    condition     = aws_instance.box.subnet_id == null || aws_instance.box.subnet_id != ""
    error_message = "an empty subnet_id must not be sent to EC2"
  }
}

run "user_data_arms_the_timer_first_and_runs_the_box_as_a_unit" {
  command = plan

  assert {
    condition     = startswith(local.user_data, "#!/bin/bash\n")
    error_message = "user data must be a bash script"
  }
  assert {
    # The first line that is not a comment is the power-off timer.
    condition     = [for l in split("\n", local.user_data) : l if l != "" && !startswith(l, "#")][0] == "shutdown -h +120 \"samebox: hard time limit reached\""
    error_message = "the shutdown timer must be the first command"
  }
  assert {
    condition     = strcontains(local.user_data, "systemd-run --unit=samebox-box") && strcontains(local.user_data, "--property=After=network-online.target")
    error_message = "the entry script must run as its own unit ordered after the network (so it uploads before the network stops)"
  }
  assert {
    condition     = strcontains(local.user_data, "SAMEBOX_STUDIES='oltp'\n") && strcontains(local.user_data, "SAMEBOX_UPLOAD_INTERVAL_SECONDS='300'\n")
    error_message = "the box's env file carries the study and the upload interval"
  }
  assert {
    condition     = length(base64gzip(local.user_data)) < 16384
    error_message = "user data must stay under EC2's 16 KiB limit"
  }
}

# The box ends on AWS's side too: EventBridge Scheduler terminates it at its expiry, whatever GitHub does.
run "every_box_has_an_aws_side_expiry" {
  command = apply

  assert {
    condition     = aws_scheduler_schedule.expiry.schedule_expression == "at(2030-01-01T17:30:00)" && aws_scheduler_schedule.expiry.schedule_expression_timezone == "UTC"
    error_message = "the schedule fires once, at the box's expiry tag (UTC)"
  }
  assert {
    condition     = aws_scheduler_schedule.expiry.target[0].arn == "arn:aws:scheduler:::aws-sdk:ec2:terminateInstances" && jsondecode(aws_scheduler_schedule.expiry.target[0].input).InstanceIds == ["i-0123456789abcdef0"]
    error_message = "the schedule terminates this box's instance"
  }
  assert {
    condition     = aws_scheduler_schedule.expiry.target[0].role_arn == "arn:aws:iam::123456789012:role/samebox-box-expiry" && aws_scheduler_schedule.expiry.group_name == "samebox"
    error_message = "the schedule acts through the bootstrap's expiry role, in its group"
  }
  assert {
    condition     = aws_scheduler_schedule.expiry.flexible_time_window[0].mode == "OFF" && aws_scheduler_schedule.expiry.name == "20300101T120000Z-full-c6a-4xlarge-oltp"
    error_message = "the schedule fires on time and is named by the run id (dispatch.py close deletes it by that name)"
  }
}

run "expiry_role_must_be_a_role_arn" {
  command = plan
  variables {
    expiry_role_arn = "samebox-box-expiry"
  }
  expect_failures = [var.expiry_role_arn]
}

run "every_box_of_a_dispatch_carries_its_dispatch_tag" {
  command = plan
  variables {
    run_id  = "20300101T120000Z-full-c6a-4xlarge-analytical-10of11"
    studies = ["analytical"]
  }
  assert {
    condition     = aws_instance.box.tags["samebox:dispatch"] == "20300101T120000Z-full-c6a-4xlarge" && aws_instance.box.volume_tags["samebox:dispatch"] == "20300101T120000Z-full-c6a-4xlarge"
    error_message = "cancel terminates by the samebox:dispatch tag: the run id without its study and share"
  }
}

run "a_share_of_the_workloads_reaches_the_box" {
  command = plan
  variables {
    workloads = ["large_sort", "window_rank"]
  }
  assert {
    condition     = strcontains(local.user_data, "SAMEBOX_WORKLOADS='large_sort,window_rank'\n")
    error_message = "the box's env file names its share of the workloads"
  }
}

run "bad_workload_name_is_rejected" {
  command = plan
  variables {
    workloads = ["x; rm -rf /"]
  }
  expect_failures = [var.workloads]
}

run "subnet_is_passed_through" {
  command = plan
  variables {
    subnet_id = "subnet-0123456789abcdef0"
  }
  assert {
    condition     = aws_instance.box.subnet_id == "subnet-0123456789abcdef0"
    error_message = "a non-default VPC's subnet must reach the instance"
  }
}

run "unknown_instance_type_is_rejected" {
  command = plan
  variables {
    instance_type = "t3.micro"
  }
  expect_failures = [var.instance_type]
}

run "empty_region_is_rejected" {
  command = plan
  variables {
    region = ""
  }
  expect_failures = [var.region]
}

# the valid systems are the folders of bench-scripts/systems (a system is one folder): one that is
# not a folder is refused, the real folders of the default variables above are accepted
run "unknown_system_is_rejected" {
  command = plan
  variables {
    systems = ["postgresql", "oracle"]
  }
  expect_failures = [var.systems]
}

run "unknown_study_is_rejected" {
  command = plan
  variables {
    studies = ["oltp", "tpcc"]
  }
  expect_failures = [var.studies]
}

run "short_commit_is_rejected" {
  command = plan
  variables {
    commit = "main"
  }
  expect_failures = [var.commit]
}

run "max_minutes_out_of_range_is_rejected" {
  command = plan
  variables {
    max_minutes = 5
  }
  expect_failures = [var.max_minutes]
}

run "bad_upload_interval_is_rejected" {
  command = plan
  variables {
    upload_interval_seconds = 5
  }
  expect_failures = [var.upload_interval_seconds]
}
