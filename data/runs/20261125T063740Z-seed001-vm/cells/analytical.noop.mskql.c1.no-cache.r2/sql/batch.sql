SELECT     			 	  		   		  	 		  	 	    	 		 	1;
