data "aws_vpc" "boxes" {
  default = var.vpc_id == ""
  id      = var.vpc_id == "" ? null : var.vpc_id
}

# A non-default VPC has no default subnet for EC2 to pick: the boxes launch
# into this one (bootstrap output SAMEBOX_SUBNET_ID, read by terraform/run).
data "aws_subnet" "boxes" {
  count = var.subnet_id == "" ? 0 : 1
  id    = var.subnet_id

  lifecycle {
    postcondition {
      condition     = self.vpc_id == data.aws_vpc.boxes.id
      error_message = "subnet_id must be a subnet of the boxes' VPC (vpc_id, or the default VPC when vpc_id is empty)."
    }
  }
}

# Every box gets this group: no inbound rule at all, outbound only what the
# install steps need (HTTP for Ubuntu's apt mirrors, HTTPS for git and the
# package registries). DNS goes to the VPC resolver, which groups do not filter.
resource "aws_security_group" "box" {
  #checkov:skip=CKV2_AWS_5:Attached by terraform/run to every box it launches; the group outlives the runs, so it lives here.
  name        = "${var.project}-box"
  description = "samebox benchmark box: no inbound, outbound HTTP/HTTPS only"
  vpc_id      = data.aws_vpc.boxes.id

  lifecycle {
    precondition {
      condition     = var.vpc_id == "" || var.subnet_id != ""
      error_message = "vpc_id is set, so subnet_id must be too: a non-default VPC has no default subnet for the boxes (pick one with a route to the internet)."
    }
  }
}

resource "aws_vpc_security_group_egress_rule" "box_http" {
  security_group_id = aws_security_group.box.id
  description       = "apt mirrors"
  ip_protocol       = "tcp"
  from_port         = 80
  to_port           = 80
  cidr_ipv4         = "0.0.0.0/0"
}

resource "aws_vpc_security_group_egress_rule" "box_https" {
  security_group_id = aws_security_group.box.id
  description       = "git, package registries, S3"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
  cidr_ipv4         = "0.0.0.0/0"
}
