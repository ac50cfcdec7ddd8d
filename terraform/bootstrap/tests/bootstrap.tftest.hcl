# terraform test, offline (AWS provider mocked): the one-time account setup
# grants the boxes and workflows only what docs/cloud.md says, and rejects
# bad inputs before anything is created.

mock_provider "aws" {
  mock_data "aws_caller_identity" {
    defaults = {
      account_id = "123456789012"
    }
  }
  mock_data "aws_vpc" {
    defaults = {
      id  = "vpc-0123456789abcdef0"
      arn = "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-0123456789abcdef0"
    }
  }
  mock_data "aws_subnet" {
    defaults = {
      id     = "subnet-0123456789abcdef0"
      vpc_id = "vpc-0123456789abcdef0"
    }
  }
  mock_data "aws_iam_policy_document" {
    defaults = {
      json = "{\"Version\":\"2012-10-17\",\"Statement\":[]}"
    }
  }
  mock_resource "aws_security_group" {
    defaults = {
      id  = "sg-0123456789abcdef0"
      arn = "arn:aws:ec2:us-east-1:123456789012:security-group/sg-0123456789abcdef0"
    }
  }
  mock_resource "aws_s3_bucket" {
    defaults = {
      arn = "arn:aws:s3:::samebox-results-123456789012-us-east-1"
    }
  }
  mock_resource "aws_iam_role" {
    defaults = {
      arn       = "arn:aws:iam::123456789012:role/samebox-box"
      unique_id = "AROAEXAMPLEROLEID1234"
    }
  }
  mock_resource "aws_iam_policy" {
    defaults = {
      arn = "arn:aws:iam::123456789012:policy/samebox-budget-spent-deny-launches"
    }
  }
  mock_resource "aws_iam_instance_profile" {
    defaults = {
      arn = "arn:aws:iam::123456789012:instance-profile/samebox-box"
    }
  }
}

variables {
  github_repository   = "example/samebox"
  region              = "us-east-1"
  budget_alert_emails = ["maintainer@example.com"]
}

run "box_group_has_no_inbound_rule" {
  command = apply

  assert {
    # Every rule of ours is an egress rule on 80/443; no ingress resource exists at all.
    condition     = aws_vpc_security_group_egress_rule.box_http.from_port == 80 && aws_vpc_security_group_egress_rule.box_https.from_port == 443
    error_message = "the box group allows outbound HTTP and HTTPS"
  }
  assert {
    condition     = length(aws_security_group.box.ingress) == 0
    error_message = "the box group must have no inbound rule"
  }
  assert {
    condition     = output.github_variables.SAMEBOX_SUBNET_ID == "" && output.github_variables.SAMEBOX_BOX_ROLE_ID == "AROAEXAMPLEROLEID1234"
    error_message = "outputs name the subnet (empty: default VPC) and the box role id"
  }
}

run "box_role_writes_and_lists_only_its_own_prefix" {
  command = plan

  assert {
    condition     = length(data.aws_iam_policy_document.box.statement[0].actions) == 2 && contains(data.aws_iam_policy_document.box.statement[0].actions, "s3:PutObject") && contains(data.aws_iam_policy_document.box.statement[0].actions, "s3:AbortMultipartUpload")
    error_message = "the box may only put objects"
  }
  assert {
    condition     = endswith(one(data.aws_iam_policy_document.box.statement[0].resources), "/boxes/$${aws:userid}/*")
    error_message = "the box writes only under boxes/<its aws:userid>/"
  }
  assert {
    condition     = length(one(data.aws_iam_policy_document.box.statement[1].condition).values) == 1 && contains(one(data.aws_iam_policy_document.box.statement[1].condition).values, "boxes/$${aws:userid}/*")
    error_message = "the box lists only its own prefix"
  }
}

run "bench_role_launches_only_allowed_imdsv2_tagged_boxes" {
  command = plan

  assert {
    condition = anytrue([for s in data.aws_iam_policy_document.bench.statement :
      s.sid == "LaunchOnlyAllowedTaggedImdsv2Instances" && anytrue([for c in s.condition : c.variable == "ec2:MetadataHttpTokens" && length(c.values) == 1 && contains(c.values, "required")])
    ])
    error_message = "the bench role may launch only IMDSv2-required instances"
  }
  assert {
    condition = anytrue([for s in data.aws_iam_policy_document.bench.statement :
      s.sid == "LaunchOnlyAllowedTaggedImdsv2Instances" && anytrue([for c in s.condition : c.test == "Null" && c.variable == "aws:RequestTag/samebox:expires-at" && length(c.values) == 1 && contains(c.values, "false")])
    ])
    error_message = "the bench role may launch only instances that carry the expiry tag"
  }
  assert {
    condition = anytrue([for s in data.aws_iam_policy_document.bench.statement :
      s.sid == "LaunchOnlyAllowedTaggedImdsv2Instances" && anytrue([for c in s.condition : c.variable == "ec2:InstanceType" && contains(c.values, "c6a.4xlarge")])
    ])
    error_message = "the bench role's instance types come from allowed.json and include c6a.4xlarge"
  }
  assert {
    condition = anytrue([for s in data.aws_iam_policy_document.bench.statement :
      s.sid == "LaunchOnlyEncryptedTaggedVolumes" && anytrue([for c in s.condition : c.variable == "ec2:Encrypted" && length(c.values) == 1 && contains(c.values, "true")])
    ])
    error_message = "the bench role may launch only encrypted volumes"
  }
}

# The S3 backend's first request for a new run's state is HeadObject of runs/<run-id>.tfstate, whose
# request context has no s3:prefix. S3 answers a missing key 404 only to a caller allowed s3:ListBucket on
# the bucket in that context, and 403 otherwise, which Terraform treats as fatal: no box could launch.
run "bench_role_gets_404_for_a_state_key_not_written_yet" {
  command = plan

  assert {
    condition = anytrue([for s in data.aws_iam_policy_document.bench.statement :
      contains(s.actions, "s3:ListBucket") && contains(s.resources, aws_s3_bucket.state.arn)
      && alltrue([for c in s.condition : c.variable != "s3:prefix"]) && s.effect != "Deny"
    ])
    error_message = "the bench role needs s3:ListBucket on the state bucket without an s3:prefix condition, or HeadObject of a missing state key is 403"
  }
  assert {
    condition = anytrue([for s in data.aws_iam_policy_document.bench.statement :
      contains(s.actions, "s3:GetObject") && contains(s.resources, "${aws_s3_bucket.state.arn}/runs/*")
    ])
    error_message = "the bench role reads the run states under runs/"
  }
}

run "non_default_vpc_needs_a_subnet" {
  command = plan
  variables {
    vpc_id = "vpc-0123456789abcdef0"
  }
  expect_failures = [aws_security_group.box]
}

run "subnet_is_output_for_the_run_module" {
  command = plan
  variables {
    vpc_id    = "vpc-0123456789abcdef0"
    subnet_id = "subnet-0123456789abcdef0"
  }
  assert {
    condition     = output.github_variables.SAMEBOX_SUBNET_ID == "subnet-0123456789abcdef0"
    error_message = "the chosen subnet reaches the bench workflow"
  }
}

run "empty_region_is_rejected" {
  command = plan
  variables {
    region = ""
  }
  expect_failures = [var.region]
}

run "bad_repository_is_rejected" {
  command = plan
  variables {
    github_repository = "not a repo"
  }
  expect_failures = [var.github_repository]
}

run "subnet_of_another_vpc_is_rejected" {
  command = plan
  variables {
    vpc_id    = "vpc-0123456789abcdef0"
    subnet_id = "subnet-0123456789abcdef0"
  }
  override_data {
    target = data.aws_subnet.boxes[0]
    values = {
      id     = "subnet-0123456789abcdef0"
      vpc_id = "vpc-0fedcba9876543210"
    }
  }
  expect_failures = [data.aws_subnet.boxes]
}

# Spending is capped on AWS's side, whatever GitHub does: a monthly budget that alerts and, once spent,
# denies the bench role every launch; and the group and role every box's expiry schedule uses.
run "budget_alerts_and_denies_launches_once_spent" {
  command = plan

  variables {
    monthly_budget_usd = 40
  }

  assert {
    condition     = aws_budgets_budget.monthly.limit_amount == "40.00" && aws_budgets_budget.monthly.time_unit == "MONTHLY" && aws_budgets_budget.monthly.budget_type == "COST"
    error_message = "a monthly cost budget of monthly_budget_usd"
  }
  assert {
    condition = anytrue([for n in aws_budgets_budget.monthly.notification :
    n.notification_type == "ACTUAL" && n.threshold == 80 && contains(n.subscriber_email_addresses, "maintainer@example.com")])
    error_message = "the budget emails the maintainer at 80 % spent"
  }
  assert {
    condition = (aws_budgets_budget_action.deny_launches.action_type == "APPLY_IAM_POLICY" && aws_budgets_budget_action.deny_launches.approval_model == "AUTOMATIC"
      && aws_budgets_budget_action.deny_launches.action_threshold[0].action_threshold_value == 100
    && contains(aws_budgets_budget_action.deny_launches.definition[0].iam_action_definition[0].roles, aws_iam_role.bench.name))
    error_message = "at 100 % spent the budget's action attaches the deny policy to the bench role without waiting for approval"
  }
  assert {
    condition     = data.aws_iam_policy_document.deny_launches.statement[0].effect == "Deny" && contains(data.aws_iam_policy_document.deny_launches.statement[0].actions, "ec2:RunInstances")
    error_message = "the policy the budget attaches denies launches"
  }
  assert {
    condition     = aws_scheduler_schedule_group.boxes.name == "samebox" && contains(data.aws_iam_policy_document.expiry.statement[0].actions, "ec2:TerminateInstances") && length(data.aws_iam_policy_document.expiry.statement[0].actions) == 1
    error_message = "the expiry schedules' group exists and their role may only terminate"
  }
  assert {
    condition = anytrue([for s in data.aws_iam_policy_document.bench.statement :
    contains(s.actions, "iam:PassRole") && contains(s.resources, aws_iam_role.expiry.arn) && anytrue([for c in s.condition : contains(c.values, "scheduler.amazonaws.com")])])
    error_message = "the bench role may pass the expiry role to EventBridge Scheduler only"
  }
}

run "budget_without_an_alert_address_is_rejected" {
  command = plan
  variables {
    budget_alert_emails = []
  }
  expect_failures = [var.budget_alert_emails]
}

run "budget_alert_address_must_be_an_email" {
  command = plan
  variables {
    budget_alert_emails = ["maintainer"]
  }
  expect_failures = [var.budget_alert_emails]
}
