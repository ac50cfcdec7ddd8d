SELECT  	 					 	 	 	 	 				  								 				 		1;
